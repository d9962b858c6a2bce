// break14b: an accelerated clock shared by the test and its child processes. now = T0 + (real - T0) * K.
// Loaded with `node --import` in the proxies; the test calls the same formula.
const K = Number(process.env.B14B_CLOCK_K || 1)
const T0 = Number(process.env.B14B_CLOCK_T0 || 0)
if (K !== 1 && T0 > 0) {
  const realNow = Date.now.bind(Date)
  Date.now = () => Math.floor(T0 + (realNow() - T0) * K)
}
