import { Type } from 'typebox';
import { decay } from '../../domain/decay.ts';
import { CLASSIFICATION_LABELS } from '../../domain/types.ts';
import { weeklyBars, weeklyWindow } from '../../domain/weekly.ts';
import { scoreContract } from '../../pipeline/score.ts';
import { eventsJson, getEvent } from '../../store/events.ts';
import { candleSeries, getRegime } from '../../store/market.ts';
import { latestSignal } from '../../store/signals.ts';
import { access, cached } from '../access.ts';
import { showsRationale } from '../auth.ts';
import { errors } from '../errors.ts';
import { pageJson, sendJson } from '../json-body.ts';
import { checkDateRange, pickEngine, upper, visibleSignal } from '../params.ts';
import {
  DateString,
  EngineParam,
  errorResponses,
  Limit,
  Offset,
  Query,
  StringEnum,
  Text,
  TickerParam,
} from '../schemas/common.ts';
import { ContractBundle, EventList, ScoreResponse } from '../schemas/resources.ts';
import type { App, Services } from '../types.ts';

const EventQuery = Query({
  engine: Type.Optional(EngineParam),
  ticker: Type.Optional(TickerParam),
  agency: Type.Optional(
    Text({ maxLength: 200, description: 'Awarding agency, exact name, case-insensitive.' }),
  ),
  classification: Type.Optional(
    StringEnum(CLASSIFICATION_LABELS, { description: 'nlp_classification label.' }),
  ),
  from: Type.Optional(DateString('Award date on or after.')),
  to: Type.Optional(DateString('Award date on or before.')),
  limit: Limit(200, 50),
  offset: Offset,
});

const ContractId = Type.Object({
  id: Text({ maxLength: 200, description: 'Contract id (CONT_AWD_…).' }),
});
const EngineQuery = Query({ engine: Type.Optional(EngineParam) });

export function registerEvents(app: App, services: Services): void {
  const { db } = services;

  for (const [path, summary] of [
    ['/api/v1/events', 'Contract events, newest award first, each with its latest signal'],
    ['/api/v1/contracts', 'Alias of /api/v1/events, kept for backward compatibility'],
  ] as const) {
    app.get(
      path,
      {
        config: cached(access.read),
        schema: {
          tags: ['events'],
          summary,
          querystring: EventQuery,
          response: { 200: EventList, ...errorResponses(400) },
        },
      },
      async (request, reply) => {
        const q = request.query;
        checkDateRange(q.from, q.to);
        const engine = pickEngine(request, q.engine);
        const list = await eventsJson(db, {
          ...q,
          ticker: upper(q.ticker),
          engine: engine.name,
          withRationale: showsRationale(request),
        });
        return sendJson(reply, pageJson(list, q.limit, q.offset));
      },
    );
  }

  app.get(
    '/api/v1/contracts/:id',
    {
      config: cached(access.read),
      schema: {
        tags: ['events'],
        summary: 'One contract with its latest default-engine signal, weekly prices, regime and decay',
        params: ContractId,
        querystring: Query({}),
        response: { 200: ContractBundle, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const event = await getEvent(db, id, pickEngine(request, undefined).name);
      if (!event) throw errors.contractNotFound(id);
      const { contract, signal } = event;
      const window = weeklyWindow(contract.award_date);
      const [candles, regime] = await Promise.all([
        candleSeries(db, contract.ticker, window.from, window.to),
        getRegime(db, id),
      ]);
      const decayed = signal
        ? decay({ signalScore: signal.signal_score, awardDate: contract.award_date, now: services.now() })
        : null;
      return {
        contract,
        signal: signal && visibleSignal(request, signal),
        weekly_prices: weeklyBars(candles),
        regime,
        decay: decayed,
      };
    },
  );

  app.get(
    '/api/v1/contracts/:id/score',
    {
      config: cached(access.read),
      schema: {
        tags: ['events'],
        summary: "The contract's most recent signal under an engine",
        params: ContractId,
        querystring: EngineQuery,
        response: { 200: ScoreResponse, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const engine = pickEngine(request, request.query.engine);
      const signal = await latestSignal(db, request.params.id, engine.name);
      if (!signal) throw errors.signalNotFound(request.params.id, engine.name);
      return { signal: visibleSignal(request, signal) };
    },
  );

  app.post(
    '/api/v1/contracts/:id/score',
    {
      config: access.write,
      schema: {
        tags: ['events'],
        summary: 'Compute or recompute the score; idempotent per (contract, engine, engine version)',
        params: ContractId,
        querystring: EngineQuery,
        response: { 200: ScoreResponse, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const engine = pickEngine(request, request.query.engine);
      const result = await scoreContract(
        db,
        request.params.id,
        engine,
        services.now(),
        services.config.signalThreshold,
      );
      if (!result) throw errors.contractNotFound(request.params.id);
      return { signal: visibleSignal(request, result.signal) };
    },
  );
}
