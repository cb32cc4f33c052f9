import { Type } from 'typebox';
import { scoreContract } from '../../pipeline/score.ts';
import { contractBundle } from '../../services/contracts.ts';
import { latestSignal } from '../../store/signals.ts';
import { access, cached, idempotent } from '../access.ts';
import { errors } from '../errors.ts';
import { pickEngine, visibleSignal } from '../params.ts';
import { shownTo } from '../reader-tier.ts';
import { EngineParam, errorResponses, IdempotencyHeaders, Query, Text } from '../schemas/common.ts';
import { ContractBundle, EventList, ScoreResponse } from '../schemas/resources.ts';
import type { App, Handler, Services } from '../types.ts';
import { EventQuery, listEvents } from './events.ts';

const ContractId = Type.Object({
  id: Text({ maxLength: 200, description: 'Contract id (CONT_AWD_…).' }),
});
const EngineQuery = Query({ engine: Type.Optional(EngineParam) });

const listSchema = {
  tags: ['events'],
  summary: 'Alias of /api/v1/events, kept for backward compatibility',
  description:
    'Deprecated: the same list as `GET /api/v1/events`, which new clients should call. It is still served, with the same parameters and answers.',
  deprecated: true,
  querystring: EventQuery,
  response: { 200: EventList, ...errorResponses(400) },
};

const contractSchema = {
  tags: ['events'],
  summary: 'One contract with its latest default-engine signal, weekly prices, regime and decay',
  params: ContractId,
  querystring: Query({}),
  response: { 200: ContractBundle, ...errorResponses(400, 404) },
};

const scoreSchema = {
  tags: ['events'],
  summary: "The contract's most recent signal under an engine",
  params: ContractId,
  querystring: EngineQuery,
  response: { 200: ScoreResponse, ...errorResponses(400, 404) },
};

const rescoreSchema = {
  tags: ['events'],
  summary: 'Compute or recompute the score; idempotent per (contract, engine, engine version)',
  params: ContractId,
  querystring: EngineQuery,
  headers: IdempotencyHeaders,
  response: { 200: ScoreResponse, ...errorResponses(400, 404) },
};

export function registerContracts(app: App, services: Services): void {
  app.get('/api/v1/contracts', { config: cached(access.read), schema: listSchema }, listEvents(services));
  app.get(
    '/api/v1/contracts/:id',
    { config: cached(access.read), schema: contractSchema },
    showContract(services),
  );
  app.get(
    '/api/v1/contracts/:id/score',
    { config: cached(access.read), schema: scoreSchema },
    showScore(services),
  );
  app.post(
    '/api/v1/contracts/:id/score',
    { config: idempotent(access.write), schema: rescoreSchema },
    rescore(services),
  );
}

function showContract({ db, now }: Services): Handler<typeof contractSchema> {
  return async (request) => {
    const { id } = request.params;
    const bundle = await contractBundle(db, id, pickEngine(request, undefined).name, now);
    if (!bundle) throw errors.contractNotFound(id);
    return shownTo(request, 'contract_bundle', bundle);
  };
}

function showScore({ db }: Services): Handler<typeof scoreSchema> {
  return async (request) => {
    const engine = pickEngine(request, request.query.engine);
    const signal = await latestSignal(db, request.params.id, engine.name);
    if (!signal) throw errors.signalNotFound(request.params.id, engine.name);
    return { signal: visibleSignal(request, signal) };
  };
}

function rescore({ db, now, config }: Services): Handler<typeof rescoreSchema> {
  return async (request) => {
    const engine = pickEngine(request, request.query.engine);
    const result = await scoreContract(db, request.params.id, engine, now(), config.signalThreshold);
    if (!result) throw errors.contractNotFound(request.params.id);
    // An engine that does not score this event (announcement-size on an award): no signal to show.
    if (!result.signal) throw errors.signalNotFound(request.params.id, engine.name);
    return { signal: visibleSignal(request, result.signal) };
  };
}
