/** Absolute path of the repository, with a trailing slash. */
export declare const root: string
/** `hono-waiting-room` and its subpaths mapped to their source files. */
export declare const packageAliases: Record<string, string>
/** Bundles `entry` into one classic script for edge-runtime; writes `outFile` and returns the code. */
export declare function bundleEdgeScript(entry: string, outFile: string): Promise<string>
/** Bundles `entry` into an ES module runnable by Node from any directory; returns `outFile`. */
export declare function bundleNodeModule(entry: string, outFile: string): Promise<string>
