import { buildDatedResolver, type DatedResolver } from '../domain/dated-resolver.ts';
import { ENGINES } from '../domain/engines/index.ts';
import { IdentityModel } from '../domain/identity.ts';
import { buildResolver, type Resolver } from '../domain/resolver.ts';
import type { Engine } from '../domain/types.ts';
import { resolverInputs } from '../store/companies.ts';
import type { Db, Queryable } from '../store/db.ts';
import { loadIdentity } from '../store/identity.ts';

/** What scoring needs: the engines to run, where signals go, and when a new one fires `signal.created`. */
export interface ScoringContext {
  db: Db;
  engines: readonly Engine[];
  signalThreshold: number;
  now: () => Date;
}

/**
 * What one ingest run needs, loaded once: scoring's context, the resolver of recipient names, and the
 * same on a date (who owned the recipient that day: src/domain/dated-resolver.ts).
 */
export interface PipelineContext extends ScoringContext {
  resolver: Resolver;
  identity: DatedResolver;
}

export async function loadResolver(db: Queryable): Promise<Resolver> {
  const { aliases, companies } = await resolverInputs(db);
  return buildResolver(aliases, companies);
}

export async function createPipelineContext(
  db: Db,
  options: { signalThreshold: number; now?: () => Date; engines?: readonly Engine[] },
): Promise<PipelineContext> {
  const [resolver, identity] = await Promise.all([loadResolver(db), loadIdentity(db)]);
  return {
    db,
    resolver,
    identity: buildDatedResolver(resolver, new IdentityModel(identity)),
    engines: options.engines ?? ENGINES,
    signalThreshold: options.signalThreshold,
    now: options.now ?? (() => new Date()),
  };
}
