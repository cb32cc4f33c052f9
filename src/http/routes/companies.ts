import { Type } from 'typebox';
import { companyWithHistory } from '../../services/company.ts';
import { access, cached } from '../access.ts';
import { errors } from '../errors.ts';
import { errorResponses, Query, TickerParam } from '../schemas/common.ts';
import { CompanyResponse } from '../schemas/resources.ts';
import type { App, Handler, Services } from '../types.ts';

const RECENT_CONTRACTS = 20;

const companySchema = {
  tags: ['companies'],
  summary: `Company record with its ${RECENT_CONTRACTS} most recent contracts and its corporate history`,
  description:
    'A ticker of a delisted company the identity data knows (RTN, LLL, COL, OA…) answers too: its record comes from that data.',
  params: Type.Object({ ticker: TickerParam }),
  querystring: Query({}),
  response: { 200: CompanyResponse, ...errorResponses(400, 404) },
};

export function registerCompanies(app: App, services: Services): void {
  app.get(
    '/api/v1/companies/:ticker',
    { config: cached(access.read), schema: companySchema },
    showCompany(services),
  );
}

function showCompany({ db }: Services): Handler<typeof companySchema> {
  return async (request) => {
    const ticker = request.params.ticker.toUpperCase();
    const company = await companyWithHistory(db, ticker, RECENT_CONTRACTS);
    if (!company) throw errors.unknownTicker(ticker);
    return company;
  };
}
