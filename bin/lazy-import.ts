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
