// One process of the many-processes test: connects (node-redis over TCP, or @upstash/redis over the
// REST bridge), says ready, then for each slot request it is sent, decides all its new users at once.
// argv[2]: JSON { adapterUrl, transport: 'tcp' | 'rest', redisUrl, database, bridgeUrl, token, prefix, name, users }
// message: { slot: { roomId, location, minute, localLimit, anywhereLimit } } → { admitted, roundTrips }
// message: 'exit' → closes and exits.
const config = JSON.parse(process.argv[2])
const { fromNodeRedis, upstashCoordinator } = await import(config.adapterUrl)

let client
let close = async () => {}
// Only the client this process uses is loaded: startup time is most of this test's time.
if (config.transport === 'tcp') {
  const { createClient } = await import('redis')
  const tcp = await createClient({ url: config.redisUrl, database: config.database }).connect()
  client = fromNodeRedis(tcp)
  close = () => tcp.close()
} else {
  const { Redis } = await import('@upstash/redis')
  client = new Redis({ url: config.bridgeUrl, token: config.token, enableTelemetry: false })
}
const coordinator = upstashCoordinator(client, { prefix: config.prefix })

process.on('message', async (message) => {
  if (message === 'exit') {
    await close()
    process.disconnect()
    return
  }
  const tokens = Array.from({ length: config.users }, (_, i) => `${config.name}-${i}`)
  const results = await Promise.all(tokens.map((token) => coordinator.takeSlot({ ...message.slot, token })))
  const admitted = results.flatMap((result, i) => (result.admitted ? [{ token: tokens[i], via: result.via }] : []))
  process.send({ admitted, roundTrips: results.map((result) => result.roundTrips) })
})
process.send({ ready: true })
