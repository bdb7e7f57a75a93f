/** Declared only: the implementation lives in plain JavaScript elsewhere. */
export declare function legacyFormat(value: number): string
