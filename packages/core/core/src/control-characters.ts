/**
 * The bidi formatting characters (Unicode's Bidi_Control: the Arabic letter mark, the left-to-right
 * and right-to-left marks, embeddings, overrides and isolates), which reorder the text around them,
 * as the inside of a regular expression's character class. What a model or a person reads is
 * stripped of them (dsh-core's `readableText`, dsh-web's `stripBidi`); CONTROL_CHARACTER_CLASS includes them.
 */
export const BIDI_CONTROLS = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069'

/** BIDI_CONTROLS as a character class. */
export const BIDI_CONTROL_CLASS = `[${BIDI_CONTROLS}]`

/**
 * The characters that act on a terminal instead of showing (C0 and C1 controls, DEL, and the bidi
 * controls that reorder text), as a regular expression's character class: text from servers, pages,
 * files and directory names is checked against this one list wherever dsh shows it to a person or
 * quotes it in a command.
 */
export const CONTROL_CHARACTER_CLASS = `[\\u0000-\\u001f\\u007f-\\u009f${BIDI_CONTROLS}]`
