/**
 * The house's walls, checked on the import graph by `npm run lint` (dependency-cruiser):
 * imports point down (surfaces → the engine's front door → workflows → llm), nothing goes in
 * circles, and a surface sees the engine only through src/engine/index.ts.
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
      to: { path: '^src/(llm|slack|cli)/|^src/main\\.ts$' },
    },
    {
      name: 'workflows-know-no-engine-or-surface',
      severity: 'error',
      comment: 'Workflows sit below the engine: they define the review protocol, the engine carries it.',
      from: { path: '^src/workflows/' },
      to: { path: '^src/(engine|slack|cli)/|^src/main\\.ts$' },
    },
    {
      name: 'llm-is-the-floor',
      severity: 'error',
      comment: 'The model layer knows nothing above it.',
      from: { path: '^src/llm/' },
      to: { path: '^src/(engine|workflows|slack|cli)/|^src/main\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(test|bench|examples|\\.ci)/' },
  },
};
