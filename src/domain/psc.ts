import type { ClassificationLabel } from './types.ts';

/**
 * Product and Service Codes (PSC) → label. Products are four digits whose first two are the
 * Federal Supply Class group; services start with a letter. Maintenance, modification,
 * installation and lease codes (J, K, L, N, W + two-digit group) inherit the label of the
 * equipment group they service, so "J015" (aircraft maintenance) is aircraft.
 */

const PRODUCT_GROUPS: ReadonlyArray<readonly [ClassificationLabel, readonly number[]]> = [
  ['missiles_munitions', [10, 11, 13, 14]],
  ['electronics_comms', [12, 58, 59, 60, 66]],
  ['aircraft', [15, 16, 17]],
  ['space', [18]],
  ['shipbuilding', [19, 20]],
  ['ground_vehicles', [22, 23, 24, 25, 26]],
  ['construction_facilities', [54, 55, 56]],
  ['healthcare', [65]],
  ['it_services', [70]],
];

/** Aircraft engines and their accessories sit inside the general engine groups 28 and 29. */
const AIRCRAFT_ENGINE_CLASSES = new Set(['2840', '2915', '2925', '2935', '2945', '2995']);

const SERVICE_LETTERS: Readonly<Record<string, ClassificationLabel>> = {
  A: 'research_development',
  B: 'professional_services',
  C: 'construction_facilities',
  D: 'it_services',
  E: 'construction_facilities',
  F: 'professional_services',
  G: 'other',
  H: 'professional_services',
  M: 'professional_services',
  P: 'other',
  Q: 'healthcare',
  R: 'professional_services',
  S: 'construction_facilities',
  T: 'professional_services',
  U: 'professional_services',
  V: 'logistics_supply',
  X: 'construction_facilities',
  Y: 'construction_facilities',
  Z: 'construction_facilities',
};

/** Letters whose remaining digits name the equipment group being serviced. */
const EQUIPMENT_SERVICE_LETTERS = new Set(['J', 'K', 'L', 'N', 'W']);

/** Security codes under D: the 2020 "DJ" family and the legacy D310 (cyber security and backup). */
function isCyberCode(code: string): boolean {
  return code.startsWith('DJ') || code === 'D310';
}

export function classifyFromPsc(psc: string): ClassificationLabel | null {
  const code = psc.trim().toUpperCase();
  if (code.length < 2) return null;
  const first = code[0] ?? '';
  if (/[0-9]/.test(first)) return classifyProduct(code);
  if (isCyberCode(code)) return 'cybersecurity';
  if (EQUIPMENT_SERVICE_LETTERS.has(first)) return classifyServicedEquipment(code);
  return SERVICE_LETTERS[first] ?? null;
}

function classifyProduct(code: string): ClassificationLabel | null {
  // The 2020 revision moved IT products to 7A..7K; the second character is then a letter.
  if (/^7[A-Z]/.test(code)) return 'it_services';
  const group = Number(code.slice(0, 2));
  if (!Number.isInteger(group)) return null;
  if (AIRCRAFT_ENGINE_CLASSES.has(code.slice(0, 4))) return 'aircraft';
  for (const [label, groups] of PRODUCT_GROUPS) if (groups.includes(group)) return label;
  // Everything else is parts, materials and supplies bought through the supply system.
  return group === 99 || group === 67 || group === 69 || group === 76 ? 'other' : 'logistics_supply';
}

function classifyServicedEquipment(code: string): ClassificationLabel | null {
  const group = code.slice(2, 4);
  if (!/^[0-9]{2}$/.test(group)) return 'professional_services';
  return classifyProduct(`${group}00`);
}
