import { Type } from 'typebox';
import { defaultEngine } from '../../domain/engines/index.ts';
import { fieldTier, withheldFields } from '../../domain/field-tiers.ts';
import { access } from '../../http/access.ts';
import { errors } from '../../http/errors.ts';
import { readerTier, shownTo } from '../../http/reader-tier.ts';
import { Query, Text } from '../../http/schemas/common.ts';
import type { App, Handler, Services } from '../../http/types.ts';
import { contractBundle } from '../../services/contracts.ts';
import type { ContractDetailDto } from '../../shapes/resources.ts';
import { requireSessionTier } from '../plan-tier.ts';

const contractSchema = {
  params: Type.Object({ id: Text({ maxLength: 200, description: 'Contract id.' }) }),
  querystring: Query({}),
};

/** USASpending's page of an award, addressed by its generated award id (`CONT_AWD_…`). */
export const usaspendingAwardUrl = (id: string): string =>
  `https://www.usaspending.gov/award/${encodeURIComponent(id)}`;

/**
 * Where the contract's record can be read at its source: the USASpending award page of an award; for an
 * announcement event, that of the award it was linked to, if any (the announcement itself is a paragraph
 * of a DoD release, with no page of its own).
 */
export function sourceLinks(contract: ContractDetailDto): { label: string; url: string }[] {
  const award = contract.source === 'usaspending' ? contract.id : contract.linked_id;
  if (!award?.startsWith('CONT_AWD_')) return [];
  const label = award === contract.id ? 'USASpending award page' : 'USASpending page of the linked award';
  return [{ label, url: usaspendingAwardUrl(award) }];
}

/**
 * The explorer's contract page: the bundle /api/v1/contracts/{id} serves (same service, same default
 * engine, the same fields withheld below their tier: src/domain/field-tiers.ts), the tier that shows
 * the rationale, the bundle's fields withheld from this reader with the tier of each (so the page says
 * which tier shows them rather than "none computed"), and the source links.
 */
export function registerContracts(app: App, services: Services): void {
  app.get(
    '/dashboard/api/contracts/:id',
    { config: access.user, schema: contractSchema },
    showContract(services),
  );
}

function showContract({ db, now }: Services): Handler<typeof contractSchema> {
  return async (request) => {
    requireSessionTier(request, 'developer', 'contracts');
    const engine = defaultEngine();
    requireSessionTier(request, engine.tier, `engine ${engine.name}`);
    const { id } = request.params;
    const bundle = await contractBundle(db, id, engine.name, now);
    if (!bundle) throw errors.contractNotFound(id);
    return {
      ...shownTo(request, 'contract_bundle', bundle),
      rationale_tier: fieldTier('signal', 'rationale'),
      withheld: withheldFields('contract_bundle', readerTier(request)),
      sources: sourceLinks(bundle.contract),
    };
  };
}
