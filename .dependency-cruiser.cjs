/**
 * The house's walls, checked on the import graph by `npm run lint` (dependency-cruiser):
 * imports point down (surfaces → the engine's front door → workflows → llm), nothing goes in
 * circles, a surface sees the engine only through src/engine/index.ts, and Slack's two sides
 * (requests in, posts out) meet only in what they share.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes two modules one: neither can be read, tested or moved alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'engine-front-door',
      severity: 'error',
      comment: 'Outside src/engine, the engine is src/engine/index.ts: export what a surface needs there.',
      from: { path: '^src/', pathNot: '^src/engine/' },
      to: { path: '^src/engine/', pathNot: '^src/engine/index\\.ts$' },
    },
    {
      name: 'engine-knows-no-surface-or-model',
      severity: 'error',
      comment: "The engine runs workflows; models are the workflows' business and surfaces sit above it.",
      from: { path: '^src/engine/' },
      to: { path: '^src/(llm|slack|cli|api|mcp)/|^src/main\\.ts$' },
    },
    {
      name: 'workflows-know-no-engine-or-surface',
      severity: 'error',
      comment: 'Workflows sit below the engine: they define the review protocol, the engine carries it.',
      from: { path: '^src/workflows/' },
      to: { path: '^src/(engine|slack|cli|api|mcp)/|^src/main\\.ts$' },
    },
    {
      name: 'llm-is-the-floor',
      severity: 'error',
      comment: 'The model layer knows nothing above it.',
      from: { path: '^src/llm/' },
      to: { path: '^src/(engine|workflows|slack|cli|api|mcp)/|^src/main\\.ts$' },
    },
    {
      name: 'slack-inbound-and-outbound-apart',
      severity: 'error',
      comment:
        "Slack's requests (slack/inbound) and the engine's events posted to Slack (slack/outbound) meet only in slack/shared and slack/blocks.",
      from: { path: '^src/slack/(inbound|outbound)/' },
      to: { path: '^src/slack/(inbound|outbound)/', pathNot: '^src/slack/$1/' },
    },
    {
      name: 'slack-shared-is-shared',
      severity: 'error',
      comment: 'What both sides of Slack use knows neither side, or it would be a path between them.',
      from: { path: '^src/slack/(shared|blocks)/' },
      to: { path: '^src/slack/(inbound|outbound)/' },
    },
    {
      name: 'slack-front-door',
      severity: 'error',
      comment:
        'Outside src/slack, Slack is its surface (surface.ts), the parts it gives the engine (engine-parts.ts) and its retention.',
      from: { path: '^src/', pathNot: '^src/slack/' },
      to: { path: '^src/slack/', pathNot: '^src/slack/(surface|engine-parts|retention)\\.ts$' },
    },
    {
      name: 'cli-front-door',
      severity: 'error',
      comment:
        'Outside src/cli, the terminal is its surface (surface.ts); bin.ts, the entry point, also runs its process (terminal.ts) and its words before a start.',
      from: { path: '^src/', pathNot: '^src/(cli/|bin\\.ts$)' },
      to: { path: '^src/cli/', pathNot: '^src/cli/surface\\.ts$' },
    },
    {
      name: 'surfaces-are-wired-not-wiring',
      severity: 'error',
      comment:
        'main.ts wires a surface to the engine and its models: a surface is given what it needs, it never imports main.ts or makes a model.',
      from: { path: '^src/(slack|cli|api|mcp)/' },
      to: { path: '^src/main\\.ts$|^src/llm/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(test|bench|examples|\\.ci)/' },
  },
};
