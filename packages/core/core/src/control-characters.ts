/**
 * The characters that act on a terminal instead of showing (C0 and C1 controls, DEL, and the bidi
 * marks, embeddings, overrides and isolates that reorder text), as a regular expression's character
 * class: text from servers, pages, files and directory names is checked against this one list
 * wherever dsh shows it to a person or quotes it in a command.
 */
export const CONTROL_CHARACTER_CLASS = '[\\u0000-\\u001f\\u007f-\\u009f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]'
