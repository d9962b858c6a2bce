/// <reference types="node" />
/**
 * @module
 * Loads a module other parts of the project supply (the SQLite store, the simulator) only when a command
 * needs it, and turns "not there" into a message that says what is missing and what to do.
 */

/** A missing module or export: printed as is, exit status 1. */
export class MissingModuleError extends Error {
  override name = 'MissingModuleError'
}

/**
 * `import(specifier)` and returns its export `name` as a function. The specifier is a variable so the
 * typecheck and build do not require the file to exist; tsc still rewrites its `.ts` to `.js`.
 */
export async function importFunction<T extends (...args: never[]) => unknown>(
  specifier: string,
  name: string,
  what: string,
  hint: string,
): Promise<T> {
  let module: Record<string, unknown>
  try {
    module = (await import(specifier)) as Record<string, unknown>
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === 'ERR_MODULE_NOT_FOUND' || /Cannot find module|Failed to load url|Does the file exist/i.test(String(error))) {
      throw new MissingModuleError(`${what} is not available: ${specifier} is not in this build. ${hint}`, { cause: error })
    }
    throw new MissingModuleError(`${what} failed to load from ${specifier}: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
  const value = module[name]
  if (typeof value !== 'function') {
    throw new MissingModuleError(`${what} is not available: ${specifier} does not export a function ${name}(). ${hint}`)
  }
  return value as T
}

/**
 * Whether `error` (or an error it was caused by) says the npm package `name` is not installed. Node
 * words it differently for require (`MODULE_NOT_FOUND`, with a require stack) and import
 * (`ERR_MODULE_NOT_FOUND`); only the code and the quoted name are relied on.
 */
export function isMissingPackage(error: unknown, name: string): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: string }).code
    if ((code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && current.message.includes(`'${name}'`)) return true
  }
  return false
}

/** One line that says which optional package `flag` needs and how to install it; no stack, no paths. */
export function missingPackageError(flag: string, name: string, cause: unknown): MissingModuleError {
  return new MissingModuleError(`${flag} needs the ${name} package, which is not installed: run npm install ${name} (or leave out ${flag} to keep the room in memory)`, { cause })
}

/**
 * @hono/node-server, which serves the CLI's HTTP: an optional peer dependency (only the CLI needs it), so it is
 * loaded when a command listens, and its absence is one line saying how to install it.
 */
export async function loadNodeServer(): Promise<typeof import('@hono/node-server') & typeof import('@hono/node-server/conninfo')> {
  try {
    const [server, conninfo] = await Promise.all([import('@hono/node-server'), import('@hono/node-server/conninfo')])
    return { ...server, ...conninfo }
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String((error as Error).message).includes("'@hono/node-server'")) throw error
    throw new MissingModuleError(
      'the hono-waiting-room command serves HTTP with the @hono/node-server package, which is not installed: run npm install @hono/node-server next to hono-waiting-room (with npx: npx -p hono-waiting-room -p @hono/node-server hono-waiting-room ...)',
      { cause: error },
    )
  }
}
