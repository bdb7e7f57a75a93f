// zod as dsh-core's published build carries it (bundled into one chunk instead of about a hundred
// modules). The other dsh packages' published builds import zod from here, so a process loads one
// copy; their sources, and plugins of other authors, import `zod` itself.
export * from 'zod'
