import { ENGINES } from '../domain/engines/index.ts';
import { buildResolver, type Resolver } from '../domain/resolver.ts';
import type { Engine } from '../domain/types.ts';
import { resolverInputs } from '../store/companies.ts';
import type { Db, Queryable } from '../store/db.ts';

/** What scoring needs: the engines to run, where signals go, and when a new one fires `signal.created`. */
export interface ScoringContext {
  db: Db;
  engines: readonly Engine[];
  signalThreshold: number;
  now: () => Date;
}

/** What one ingest run needs, loaded once: scoring's context and the resolver of recipient names. */
export interface PipelineContext extends ScoringContext {
  resolver: Resolver;
}

export async function loadResolver(db: Queryable): Promise<Resolver> {
  const { aliases, companies } = await resolverInputs(db);
  return buildResolver(aliases, companies);
}

export async function createPipelineContext(
  db: Db,
  options: { signalThreshold: number; now?: () => Date; engines?: readonly Engine[] },
): Promise<PipelineContext> {
  return {
    db,
    resolver: await loadResolver(db),
    engines: options.engines ?? ENGINES,
    signalThreshold: options.signalThreshold,
    now: options.now ?? (() => new Date()),
  };
}
