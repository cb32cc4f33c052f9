/**
 * Top-tier agency names (USASpending spelling) from the 4-character awarding agency code embedded
 * in a `CONT_AWD_{piid}_{agency}_{idvpiid}_{idvagency}` id. For DoD the code is always 9700; for
 * civilian agencies it is the sub-tier code (e.g. 7529 = NIH), whose first two characters are the
 * department's code. Lookup order: the full 4-character code, then the 2-character prefix.
 * Independent agencies in the 95xx block are listed by full code only.
 */
const BY_CODE: Readonly<Record<string, string>> = {
  '955F': 'Consumer Financial Protection Bureau',
  '9577': 'Corporation for National and Community Service',
};

const BY_PREFIX: Readonly<Record<string, string>> = {
  '05': 'Government Accountability Office',
  '12': 'Department of Agriculture',
  '13': 'Department of Commerce',
  '14': 'Department of the Interior',
  '15': 'Department of Justice',
  '16': 'Department of Labor',
  // Army 21xx, Navy 17xx, Air Force 57xx and the DoD 97xx codes all belong to DoD.
  '17': 'Department of Defense',
  '19': 'Department of State',
  '20': 'Department of the Treasury',
  '21': 'Department of Defense',
  '24': 'Office of Personnel Management',
  '28': 'Social Security Administration',
  '29': 'Federal Trade Commission',
  '31': 'Nuclear Regulatory Commission',
  '36': 'Department of Veterans Affairs',
  '47': 'General Services Administration',
  '49': 'National Science Foundation',
  '50': 'Securities and Exchange Commission',
  '57': 'Department of Defense',
  '68': 'Environmental Protection Agency',
  '69': 'Department of Transportation',
  '70': 'Department of Homeland Security',
  '72': 'Agency for International Development',
  '73': 'Small Business Administration',
  '75': 'Department of Health and Human Services',
  '77': 'U.S. International Development Finance Corporation',
  '80': 'National Aeronautics and Space Administration',
  '83': 'Export-Import Bank of the United States',
  '86': 'Department of Housing and Urban Development',
  '88': 'National Archives and Records Administration',
  '89': 'Department of Energy',
  '91': 'Department of Education',
  '97': 'Department of Defense',
};

/** The awarding agency code of a `CONT_AWD_…` id (second-to-last but two segment), or null. */
export function agencyCodeFromAwardId(id: string): string | null {
  if (!id.startsWith('CONT_AWD_')) return null;
  const parts = id.slice('CONT_AWD_'.length).split('_');
  // {piid}_{agency}_{idvpiid}_{idvagency}; a PIID could in theory contain '_', so count from the end.
  if (parts.length < 4) return null;
  const code = parts[parts.length - 3];
  return code && /^[0-9A-Z]{4}$/.test(code) ? code : null;
}

/** Top-tier agency for a 4-character FPDS agency code, or null when unknown. */
export function topTierAgencyForCode(code: string): string | null {
  return BY_CODE[code] ?? BY_PREFIX[code.slice(0, 2)] ?? null;
}

/** Top-tier agency for an award id; null when the id carries no known code. */
export function topTierAgencyForAwardId(id: string): string | null {
  const code = agencyCodeFromAwardId(id);
  return code ? topTierAgencyForCode(code) : null;
}

/**
 * DoD sub-tier names (USASpending spelling) for the legacy data feed's `contractingofficeagencyid`
 * codes, e.g. `2100: DEPT OF THE ARMY`. Unknown codes fall back to the feed's own name text.
 */
export const DOD_SUB_TIER: Readonly<Record<string, string>> = {
  '2100': 'Department of the Army',
  '1700': 'Department of the Navy',
  '5700': 'Department of the Air Force',
  '97AS': 'Defense Logistics Agency',
  '97AZ': 'Defense Commissary Agency',
  '97AK': 'Defense Information Systems Agency',
  '97ZS': 'U.S. Special Operations Command',
  '97BZ': 'Defense Finance and Accounting Service',
  '9761': 'Defense Threat Reduction Agency',
  '9763': 'Defense Contract Management Agency',
  '97JC': 'Missile Defense Agency',
  '97F1': 'Defense Media Activity',
  '97AB': 'National Geospatial-Intelligence Agency',
  '97HW': 'Uniformed Services University of the Health Sciences',
};
