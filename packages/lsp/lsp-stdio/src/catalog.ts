import type { z } from 'zod'
import type { ServerConfig } from './config.ts'

/** A ready-made server row. */
export interface CatalogEntry {
  /** Human names for the table in docs/lsp.md. */
  readonly language: string
  /** Whether `catalog: all` includes it (an alternative server for a language another entry serves does not). */
  readonly inAll: boolean
  readonly server: z.input<typeof ServerConfig>
}

const TYPESCRIPT_EXTENSIONS = { '.ts': 'typescript', '.tsx': 'typescriptreact', '.mts': 'typescript', '.cts': 'typescript', '.js': 'javascript', '.jsx': 'javascriptreact', '.mjs': 'javascript', '.cjs': 'javascript' }
const PYTHON_EXTENSIONS = { '.py': 'python', '.pyi': 'python' }
/** A Python project's own directory: pyright resolves its imports (a `src` layout included) from there. */
const PYTHON_ROOTS = [['pyproject.toml', 'pyrightconfig.json', 'setup.py', 'setup.cfg', 'requirements.txt', 'Pipfile']]
/**
 * pyright (and basedpyright) answer right after the handshake, before they have read their
 * configuration and found the workspace's source files, and report no progress for it: a first
 * workspace search answered nothing, complete. Their log says when the files are found.
 */
const PYRIGHT_LOADING = { title: 'finding source files', begin: '^Starting service instance', end: '^(Found \\d+ source files?|No source files found)', fromInitialized: true }

/**
 * Language servers known to work with dsh-lsp-stdio, by id. A row takes them with
 * `catalog: all` or `catalog: [go, rust]`; its own `servers` entry of the same id replaces one (or adjusts it, without a `command`).
 * None of them reaches the network with these settings (schema stores, explainshell, telemetry off).
 */
export const SERVER_CATALOG: Readonly<Record<string, CatalogEntry>> = {
  typescript: {
    language: 'TypeScript, JavaScript',
    inAll: true,
    server: {
      command: 'typescript-language-server',
      args: ['--stdio'],
      typescript: 'auto',
      extensionToLanguage: TYPESCRIPT_EXTENSIONS,
      // typescript-language-server lives on when its tsserver dies, ends its progress and answers empty.
      fatalLogPatterns: ['\\[tsserver\\] Exited'],
      // A lockfile marks a project that installs its own packages, TypeScript included, which
      // decides between the native server and tsserver; a monorepo's packages share its one lockfile.
      rootMarkers: [['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock', 'bun.lockb']],
      // Neither server checks a new name: `1abc` and `a-b` were written.
      newNames: 'ecmascript',
      install: 'npm install --save-dev typescript (7 or later), or typescript@5 with typescript-language-server',
    },
  },
  python: {
    language: 'Python',
    inAll: true,
    server: { command: 'pyright-langserver', args: ['--stdio'], extensionToLanguage: PYTHON_EXTENSIONS, rootMarkers: PYTHON_ROOTS, logProgress: PYRIGHT_LOADING, newNames: 'python', install: 'npm install --save-dev pyright' },
  },
  basedpyright: {
    language: 'Python',
    inAll: false,
    server: { command: 'basedpyright-langserver', args: ['--stdio'], extensionToLanguage: PYTHON_EXTENSIONS, rootMarkers: PYTHON_ROOTS, logProgress: PYRIGHT_LOADING, newNames: 'python', install: 'npm install --save-dev basedpyright' },
  },
  go: {
    language: 'Go',
    inAll: true,
    // A go.work anywhere up to the workspace serves all of its modules from one server.
    // gopls answers a workspace symbol search with its best 100 matches (maxSymbols in its source), saying nothing of the rest.
    server: {
      command: 'gopls',
      extensionToLanguage: { '.go': 'go' },
      rootMarkers: ['go.work', 'go.mod'],
      workspaceSymbolLimit: 100,
      // gopls runs `go` as it loads a workspace; a Go >= 1.21 `go` downloads and runs the toolchain a
      // go.mod or go.work `toolchain` line names (GOTOOLCHAIN=auto, its default): not before trust.
      untrustedEnv: { GOTOOLCHAIN: 'local' },
      // go finds a go.work in any directory above the module (its toolchain line and modules with it).
      readsAbove: ['go.work'],
      install: 'apt-get install gopls golang-go (Debian), or go install golang.org/x/tools/gopls@latest',
    },
  },
  rust: {
    language: 'Rust',
    inAll: true,
    server: {
      command: 'rust-analyzer',
      extensionToLanguage: { '.rs': 'rust' },
      // Cargo.lock sits at the top of a cargo workspace, so its member crates share one server.
      rootMarkers: ['Cargo.lock', 'Cargo.toml'],
      // rustup installs a rust-analyzer shim with every toolchain, which fails until the component is added.
      preflight: { args: ['--version'] },
      // Even the preflight counts: rustup's shim follows a rust-toolchain.toml `path` to any binary.
      runsWorkspaceCode: "rust-analyzer runs the crate's build scripts and procedural macros, and rustup and cargo follow its rust-toolchain.toml and .cargo/config.toml",
      // cargo reads .cargo/config.toml in every directory above the crate, rustup the nearest toolchain file above.
      readsAbove: ['.cargo', 'rust-toolchain.toml', 'rust-toolchain'],
      install: 'rustup component add rust-analyzer',
    },
  },
  c: {
    language: 'C, C++, Objective-C',
    inAll: true,
    server: {
      command: 'clangd',
      // Without compile_commands.json clangd guesses flags per file; a project that has one gets its own.
      args: ['--log=error'],
      rootMarkers: [['compile_commands.json', 'compile_flags.txt', '.clangd']],
      // clangd's --limit-results (default 100) cuts a workspace symbol search there, saying nothing of the rest.
      workspaceSymbolLimit: 100,
      // Its background index covers only the files a compilation database lists (compile_flags.txt
      // lists none): without one a workspace search is empty and callers in other files are missed.
      workspaceIndex: {
        files: ['compile_commands.json', 'build/compile_commands.json'],
        note: 'clangd then knows only the files open, so workspace searches find nothing and callers in other files are missed. Generate one at the project root (CMake: -DCMAKE_EXPORT_COMPILE_COMMANDS=ON; make: bear -- make) and ask again',
      },
      extensionToLanguage: { '.c': 'c', '.h': 'c', '.cc': 'cpp', '.cpp': 'cpp', '.cxx': 'cpp', '.hh': 'cpp', '.hpp': 'cpp', '.hxx': 'cpp', '.m': 'objective-c', '.mm': 'objective-cpp' },
      install: 'apt-get install clangd',
    },
  },
  shell: {
    language: 'Bash, sh',
    inAll: true,
    server: {
      command: 'bash-language-server',
      args: ['start'],
      extensionToLanguage: { '.sh': 'shellscript', '.bash': 'shellscript' },
      filenameToLanguage: { '.bashrc': 'shellscript', '.bash_profile': 'shellscript', '.bash_login': 'shellscript', '.bash_logout': 'shellscript', '.bash_aliases': 'shellscript', '.profile': 'shellscript' },
      // Its background analysis of the workspace reports no progress, only log lines (at level info).
      env: { BASH_IDE_LOG_LEVEL: 'info' },
      configuration: { bashIde: { explainshellEndpoint: '', shellcheckPath: '', logLevel: 'info' } },
      logProgress: { title: 'background analysis', begin: '^\\S+ INFO BackgroundAnalysis: resolving glob', end: '^\\S+ INFO BackgroundAnalysis: (Completed|skipping)|^\\S+ WARNING BackgroundAnalysis: failed resolving', fromInitialized: true },
      install: 'npm install --save-dev bash-language-server',
    },
  },
  yaml: {
    language: 'YAML',
    inAll: true,
    server: {
      command: 'yaml-language-server',
      args: ['--stdio'],
      extensionToLanguage: { '.yaml': 'yaml', '.yml': 'yaml' },
      // The schema store is fetched from the network unless it is off. A file's own `$schema` modeline
      // names any URL, a loopback one included, and a repository's file is not the user's word: asked
      // to, the server sends an http(s) schema's request to dsh (`vscode/content`, which dsh does not
      // serve) instead of fetching it, as the json row does; a file:// schema still works.
      configuration: { yaml: { schemaStore: { enable: false }, hover: true, completion: true, validate: true }, redhat: { telemetry: { enabled: false } } },
      initializedNotifications: [{ method: 'yaml/registerContentRequest' }],
      install: 'npm install --save-dev yaml-language-server@1 (2.x needs Node 22)',
    },
  },
  json: {
    language: 'JSON',
    inAll: true,
    server: {
      command: 'vscode-json-language-server',
      args: ['--stdio'],
      extensionToLanguage: { '.json': 'json', '.jsonc': 'jsonc' },
      initializationOptions: { provideFormatter: false, handledSchemaProtocols: ['file'] },
      // A file's `$schema` names any file on disk, and the server shows what it read (an enum's
      // values in a diagnostic): untrusted, it asks dsh, which reads only files inside the workspace.
      untrustedInitializationOptions: { handledSchemaProtocols: [] },
      install: 'npm install --save-dev vscode-langservers-extracted',
    },
  },
  css: {
    language: 'CSS, SCSS, Less',
    inAll: true,
    server: {
      command: 'vscode-css-language-server',
      args: ['--stdio'],
      extensionToLanguage: { '.css': 'css', '.scss': 'scss', '.less': 'less' },
      initializationOptions: { provideFormatter: false },
      install: 'npm install --save-dev vscode-langservers-extracted',
    },
  },
  html: {
    language: 'HTML',
    inAll: true,
    server: {
      command: 'vscode-html-language-server',
      args: ['--stdio'],
      extensionToLanguage: { '.html': 'html', '.htm': 'html' },
      initializationOptions: { provideFormatter: false },
      install: 'npm install --save-dev vscode-langservers-extracted',
    },
  },
  dockerfile: {
    language: 'Dockerfile',
    inAll: true,
    server: {
      command: 'docker-langserver',
      args: ['--stdio'],
      extensionToLanguage: { '.dockerfile': 'dockerfile' },
      filenameToLanguage: { Dockerfile: 'dockerfile', 'Dockerfile.*': 'dockerfile', Containerfile: 'dockerfile', 'Containerfile.*': 'dockerfile' },
      install: 'npm install --save-dev dockerfile-language-server-nodejs',
    },
  },
}
