/** A database refusing signoff's user at start, said as what to do about it. */
import { describe, expect, it } from 'vitest';
import { startFailureInWords } from '../../src/cli/start-failure.js';

const refused = (message: string) => Object.assign(new Error(message), { code: '42501' });
const words = (message: string, url: string) =>
  startFailureInWords(refused(message), { url, dataDir: '/nonexistent' });

describe('a permission refused at start', () => {
  it('on the database: the grant that mends it, with names quoted as SQL needs them', () => {
    expect(
      words('permission denied for database signoff-np', 'postgres://signoff-np@db:5432/signoff-np'),
    ).toContain(
      'ALTER DATABASE "signoff-np" OWNER TO "signoff-np"), or GRANT CREATE ON DATABASE "signoff-np" TO "signoff-np"',
    );
    expect(words('permission denied for database signoff', 'postgres://db/signoff')).toContain(
      'GRANT CREATE ON DATABASE signoff TO CURRENT_USER',
    );
  });

  it('to create a database (signoff test): none of these, so the sentence that wraps it is said', () => {
    expect(words('permission denied to create database', 'postgres://ann@db:5432/signoff')).toBeUndefined();
  });

  it('on a schema or table another role owns: no database grant is offered, for none would mend it', () => {
    const said = words('permission denied for schema signoff', 'postgres://ann@db:5432/signoff');
    expect(said).toContain('belong to another role');
    expect(said).not.toContain('GRANT CREATE ON DATABASE');
  });
});
