/// <reference types="node" />
/**
 * @module
 * node:net sockets for the fast path's HTTP/1.1 client (./h1-pool.ts), as ./h1-dial.ts has Bun's. Node-only,
 * like ./node.ts: nothing runtime-neutral imports it.
 */
import { connect } from 'node:net'
import type { H1Dial } from './h1-pool.ts'

/** node:net as an {@link H1Dial}. */
export const nodeDial: H1Dial = (host, port, events) =>
  new Promise((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true })
    let connected = false
    socket.on('data', (bytes: Buffer) => events.data(bytes))
    socket.once('connect', () => {
      connected = true
      resolve({
        write: (data) => void (typeof data === 'string' ? socket.write(data, 'latin1') : socket.write(data)),
        pause: () => socket.pause(),
        resume: () => socket.resume(),
        destroy: () => socket.destroy(),
      })
    })
    let failure: unknown
    socket.once('error', (error) => {
      failure = error
      if (!connected) reject(error)
    })
    socket.once('close', () => {
      if (connected) events.close(failure)
    })
  })
