/** break20b: reading a raw client answer (latin1 text) the way an HTTP/1.1 client frames it. */

/** The body of the first answer in `answer`: dechunked when its head says chunked (`complete`: it ended with its last chunk), else the rest as read. */
export function bodyOf(answer: string): { head: string; body: string; complete: boolean } {
  const at = answer.indexOf('\r\n\r\n')
  if (at === -1) return { head: answer, body: '', complete: false }
  const head = answer.slice(0, at)
  let rest = answer.slice(at + 4)
  if (!/\r\ntransfer-encoding: *chunked/i.test(head)) return { head, body: rest, complete: true }
  let body = ''
  for (;;) {
    const eol = rest.indexOf('\r\n')
    const size = parseInt(rest.slice(0, eol), 16)
    if (!(size > 0)) return { head, body, complete: size === 0 }
    body += rest.slice(eol + 2, eol + 2 + size)
    rest = rest.slice(eol + 4 + size)
  }
}
