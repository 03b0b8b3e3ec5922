// What a migration is: a step that brings a schema from one version to the next, on either engine.
import type { Kysely } from 'kysely';

export type Engine = 'sqlite' | 'postgres';

export interface Migration {
  // The migrations build schemas by table names as written, not through the Database type.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  up(db: Kysely<any>, engine: Engine): Promise<void>;
}
