/** Who may start a skill. Both flags are independent; a consumer applies the one for its own surface. */
export interface InvocationPolicy {
  /** May appear in the model's catalog and be loaded by the `skill` tool. */
  readonly modelInvocable: boolean
  /** May be started by a person (`/name` in a user message). */
  readonly userInvocable: boolean
}

/** Where the files a skill's body refers to live. */
export type ResourceBase =
  | { readonly kind: 'directory'; readonly path: string }
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'opaque'; readonly description: string }

/** What `list()` tells about a skill: enough to route on, never the body. */
export interface SkillSummary {
  readonly name: string
  readonly description: string
  /** An extra routing hint; never rendered. */
  readonly whenToUse?: string
  readonly invocation: InvocationPolicy
  /** Origin bucket (`project-dsh`, `user-agents`, `runtime`, …); metadata only, precedence comes from rank and layer. */
  readonly source: string
  /** The provider that loads the body. */
  readonly provider: string
  readonly resourceBase?: ResourceBase
}

/** What a provider's `list()` offers: a summary plus what the registry needs to pick and load a winner. */
export interface SkillCandidate extends SkillSummary {
  /** Lower wins a name inside one layer (see `SkillRank`). */
  readonly rank: number
  /** Opaque to the registry; handed back to the provider's `get()` unchanged. */
  readonly locator: unknown
  readonly path?: string
  readonly metadata?: Readonly<Record<string, unknown>>
}

/** A loaded skill: the summary plus the instruction body (frontmatter removed). */
export interface SkillDefinition extends SkillSummary {
  readonly content: string
  readonly path?: string
  readonly metadata?: Readonly<Record<string, unknown>>
}

/** A skill registered in code; `invocation` defaults to both true, `provider` to `runtime`. */
export interface RuntimeSkill extends Omit<SkillDefinition, 'invocation' | 'provider' | 'source'> {
  readonly invocation?: InvocationPolicy
  readonly provider?: string
  readonly source?: string
}

/**
 * A scope key: any object. Registrations made with `{ scope }` go into that scope's layer; a view
 * with `{ scope }` sees the global layer, then each ancestor's layer (see `bindScope`), then the
 * scope's own, a nearer layer replacing a farther one's skill of the same name. The skill tool and
 * the catalog use the calling session as the scope.
 */
export type ScopeKey = object

/** What providers see of a read. */
export interface LookupOptions {
  /** The workspace the read is for; project roots are found from it. */
  readonly cwd?: string
  readonly signal?: AbortSignal
}

/** A registry read: lookup options plus the scope whose view it is. */
export interface ViewOptions extends LookupOptions {
  readonly scope?: ScopeKey
}

/** `complete: false`: usable, but not authoritative (never cached, never published as a catalog). */
export interface Observation {
  readonly candidates: readonly SkillCandidate[]
  readonly complete: boolean
  /**
   * How long the observation stays true without an `invalidate()`: the registry lists the provider
   * again once its cached observation is older (0: on every read). Absent: until the provider
   * invalidates. For a provider that cannot watch what it read.
   */
  readonly maxAgeMs?: number
  /**
   * Skills the provider found but does not offer because the workspace that brings them is not
   * trusted (`ctx.trust`); the catalog tells the model how many. Absent: none.
   */
  readonly untrusted?: number
}

export interface SkillProvider {
  /** Unique in its layer; `runtime` is reserved. */
  readonly name: string
  /** An array is shorthand for a complete observation. Should settle promptly when `options.signal` aborts. */
  list(options: ViewOptions): Promise<readonly SkillCandidate[] | Observation>
  /** Loads the winning candidate this provider listed; `undefined` when it is no longer loadable. */
  get(candidate: SkillCandidate, options: ViewOptions): Promise<SkillDefinition | undefined>
  /** Optional: a file at `path` was just written by someone in this process (see `SkillRegistry.fileChanged`). */
  fileChanged?(path: string): void
}

/** Handed to a provider factory. */
export interface ProviderControl {
  /** Aborts when the registration fails or is disposed. */
  readonly signal: AbortSignal
  /** Drops every cached observation and announces a change; a no-op once this registration is not live. */
  invalidate(): void
}

export interface SkillSnapshot {
  /** Winning summaries sorted by name (code-point order). */
  readonly skills: readonly SkillSummary[]
  /** True only when every provider of every merged layer answered completely and no change raced the read. */
  readonly complete: boolean
  /** Skills of the view's workspace left out because it is not trusted (the providers' `untrusted`, summed); absent when none. */
  readonly untrusted?: number
}

/** The reference rank table (lower wins inside a layer). */
export const SkillRank = {
  projectDsh: 100,
  projectAgents: 200,
  projectClaude: 220,
  runtime: 250,
  custom: 300,
  userDsh: 400,
  userAgents: 500,
  userClaude: 520,
  bundled: 600,
} as const
