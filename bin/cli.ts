/// <reference types="node" />
/**
 * @module
 * The CLI's dispatch: picks the subcommand, parses its flags, and turns every failure into a message and
 * an exit status (2 for a usage mistake, 1 for anything else) rather than a stack trace.
 */
import { DEMO_DEFAULTS, DEMO_EXCLUDED_FLAGS, DEMO_USAGE, runDemo } from './demo-command.ts'
import { parseFlags, UsageError } from './flags.ts'
import { MissingModuleError } from './lazy-import.ts'
import { PROXY_USAGE, runProxy } from './proxy-command.ts'
import { runSimulateCommand } from './simulate-command.ts'

export const NAME = 'hono-waiting-room'

const COMMANDS = `Commands:
  proxy      (default) the reverse proxy with the waiting room in front of --origin
  demo       a demo site behind the waiting room at http://localhost:8787
  simulate   simulate traffic against a room (see '${NAME} simulate --help')
`

interface Io {
  out: (text: string) => void
  err: (text: string) => void
}

const consoleIo: Io = { out: (text) => console.log(text), err: (text) => console.error(text) }

/** Runs the CLI with `argv` (after `node script`) and resolves with the exit status. */
export async function main(argv: string[], env: Record<string, string | undefined> = process.env, io: Io = consoleIo): Promise<number> {
  const [first, ...rest] = argv
  const command = first && !first.startsWith('-') ? first : 'proxy'
  const args = first && !first.startsWith('-') ? rest : argv
  try {
    switch (command) {
      case 'proxy': {
        const { help, config } = parseFlags(args, env)
        if (help) {
          io.out(`${PROXY_USAGE.replace('Flags:', `${COMMANDS}\nFlags:`)}`)
          return 0
        }
        return await runProxy(config)
      }
      case 'demo': {
        const { help, config } = parseFlags(args, env, DEMO_DEFAULTS, DEMO_EXCLUDED_FLAGS)
        if (help) {
          io.out(DEMO_USAGE)
          return 0
        }
        return await runDemo(config)
      }
      case 'simulate':
        return await runSimulateCommand(args)
      default:
        // Not a usage error of a command: there is no `<command> --help` to point at.
        io.err(`${NAME}: unknown command '${command}'\n${COMMANDS}Run '${NAME} --help' to see the proxy's flags.`)
        return 2
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${NAME}: ${error.message}\nRun '${NAME} ${command === 'proxy' ? '' : `${command} `}--help' to see the flags.`)
      return 2
    }
    if (error instanceof MissingModuleError) {
      io.err(`${NAME}: ${error.message}`)
      return 1
    }
    io.err(`${NAME}: ${error instanceof Error ? error.message.replace(/^\[hono-waiting-room\] /, '') : String(error)}`)
    return 1
  }
}
