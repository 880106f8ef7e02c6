import { expect, inject, it } from 'vitest';

it('fails on purpose, after the embedded PostgreSQL was started', () => {
  expect(inject('databaseUrl')).toMatch(/^postgres/);
  expect('this test').toBe('failing, so that its exit code proves failures are reported');
});
