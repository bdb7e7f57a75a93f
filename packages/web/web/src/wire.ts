import { z } from 'zod'

/**
 * The schema of an optional text field in one result of a provider's answer (a title, a snippet, a
 * date): a string, or left out when it is missing, null, or of another type (a title sent as a
 * number or an object). Left out rather than failing the result: its URL is what the model cites,
 * and `web_search` labels a source without a title by its host. A function, so a provider builds it
 * with the rest of its wire schemas when the first answer is read.
 */
export function optionalText() {
  return z.string().nullish().catch(undefined)
}
