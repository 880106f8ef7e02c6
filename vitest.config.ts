import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.int.test.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'int',
          include: ['test/**/*.int.test.ts'],
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Each file has its own database; two at a time keeps a 2-core machine responsive.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
