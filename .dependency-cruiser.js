// @ts-check
// Dependency rules for src/, checked by `npm run check:deps` (and by `npm run check` and CI).
// Each rule's comment is printed when the rule fails: it says what to do instead.

/** Adapters: the ways in from the outside world. They depend on core, never on each other. */
const ADAPTERS = '^src/(?:http|mcp|bots)/';
/** Everything that drives core from outside, including the CLI and the app wiring. */
const CORE_MUST_NOT_REACH = '^src/(?:http|mcp|bots|cli|app)(?:/|[.]ts$)';

/**
 * An npm package, resolved (node_modules/<name>/..., its @types too) or not installed at all (<name>).
 * @param {string} names an alternation of package names, e.g. 'koa|@koa/[^/]+'
 */
const npmPackage = (names) => `^(?:node_modules/|node_modules/@types/)?(?:${names})(?:/|$)`;

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Import cycle: break it by moving the piece both sides need into its own module, ' +
        'or by splitting the handle (types, ids, lookups) from the code that performs the work.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'core-not-to-koa',
      severity: 'error',
      comment: 'src/core must not use Koa: take plain inputs and a Scope; HTTP lives in src/http.',
      from: { path: '^src/core/' },
      to: { path: npmPackage('koa|@koa/[^/]+|koa__[^/]+') },
    },
    {
      name: 'core-not-to-slack',
      severity: 'error',
      comment: 'src/core must not use Slack: bots live in src/bots and call core.',
      from: { path: '^src/core/' },
      to: { path: npmPackage('@slack/[^/]+|slack__[^/]+') },
    },
    {
      name: 'core-not-to-discord',
      severity: 'error',
      comment: 'src/core must not use discord.js: bots live in src/bots and call core.',
      from: { path: '^src/core/' },
      to: { path: npmPackage('discord[.]js') },
    },
    {
      name: 'core-not-to-mcp-sdk',
      severity: 'error',
      comment: 'src/core must not use the MCP SDK: tools live in src/mcp and call core.',
      from: { path: '^src/core/' },
      to: { path: npmPackage('@modelcontextprotocol/[^/]+') },
    },
    {
      name: 'core-not-to-adapters',
      severity: 'error',
      comment:
        'src/core must not import an adapter (src/http, src/mcp, src/bots, src/cli, src/app): ' +
        'adapters depend on core, never the other way. Move what core needs into src/core and have the adapter pass it in.',
      from: { path: '^src/core/' },
      to: { path: CORE_MUST_NOT_REACH },
    },
    {
      name: 'core-not-to-emulators',
      severity: 'error',
      comment:
        'src/core must not import an emulator: emulators stand in for providers and are reached over HTTP only. ' +
        'Talk to the provider through its URL from the configuration.',
      from: { path: '^src/core/' },
      to: { path: '^src/emulators/' },
    },
    {
      name: 'core-shared-not-to-provider-folders',
      severity: 'error',
      comment:
        "src/core's shared modules (posts, publishing, insights, platforms, slides, media, chat, ...) reach a network only " +
        'through the provider port (src/core/providers/port.ts) and the registry on CoreDeps (deps.providers.of(platform)); ' +
        "a provider's folder (src/core/providers/<network>/) is imported by itself, the port's own modules and the " +
        'composition root. Add what you need to the Provider interface and implement it in the provider folder.',
      from: { path: '^src/core/', pathNot: '^src/core/providers/' },
      to: { path: '^src/core/providers/(?!openai/)[^/]+/' },
    },
    {
      name: 'adapters-not-to-each-other',
      severity: 'error',
      comment:
        'Adapters (src/http, src/mcp, src/bots) never import each other: move the shared piece into src/core ' +
        'and have both adapters import it from there.',
      from: { path: '^src/(http|mcp|bots)/' },
      to: { path: ADAPTERS, pathNot: '^src/$1/' },
    },
    {
      name: 'adapters-not-to-emulators',
      severity: 'error',
      comment:
        'Adapters (src/http, src/mcp, src/bots) must not import an emulator: emulators stand in for providers ' +
        'and are reached over HTTP only. Start them from the CLI or the tests.',
      from: { path: ADAPTERS },
      to: { path: '^src/emulators/' },
    },
    {
      name: 'emulators-import-nothing-of-ours',
      severity: 'error',
      comment:
        'An emulator stands in for an outside service and imports nothing of the project (src/core, the adapters ' +
        'or anything else outside src/emulators): give the emulator its own copy of the helper, ' +
        'e.g. src/emulators/tiktok/escape-html.ts.',
      from: { path: '^src/emulators/' },
      to: { path: '^src/', pathNot: '^src/emulators/' },
    },
    {
      name: 'not-to-dev-dep',
      severity: 'error',
      comment:
        'src/ ships to production, devDependencies do not: move the package to "dependencies" in package.json, ' +
        'or keep the code that needs it in test/, bench/ or tools/.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'], pathNot: '^node_modules/@types/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment:
        'This import cannot be resolved to a file: fix the path (with its .js extension, as NodeNext wants), ' +
        'or add the package to package.json.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    moduleSystems: ['es6', 'cjs'],
    // `import type` and other imports the compiler erases count too: a type-only cycle is still a cycle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
  },
};
