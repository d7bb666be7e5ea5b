/**
 * The URL of a module beside `base` (the caller's `import.meta.url`), with the caller's own
 * extension: `.ts` when run from source, `.js` in the compiled package. The build rewrites import
 * specifiers to `.js`, but not a string handed to `new URL()`, such as a worker thread's module.
 *
 * @example
 * new Worker(siblingModule('./write-behind-worker', import.meta.url))
 */
export function siblingModule(path: string, base: string): URL {
  return new URL(`${path}${base.endsWith('.ts') ? '.ts' : '.js'}`, base)
}
