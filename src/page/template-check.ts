/**
 * @module
 * A queue-page template is checked when it is given (options, events, the admin API), never first when a
 * queued user needs the page: a template Mustache cannot parse would answer every queued user with a 500.
 */
import Mustache from 'mustache'

/** Why Mustache cannot parse `template`, or undefined when it can. */
export function templateError(template: string): string | undefined {
  try {
    Mustache.parse(template)
    return undefined
  } catch (error) {
    return `Mustache: ${(error as Error)?.message ?? error}`
  }
}
