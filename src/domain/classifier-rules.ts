import type { ClassificationLabel } from './types.ts';

/**
 * Keyword rules over upper-cased award descriptions. A table of data, tuned on the labelled
 * awards in test/domain/classifier.test.ts; weights: 3 = names a platform or is unambiguous,
 * 2 = strong hint, 1 = weak hint that only decides when nothing stronger matched.
 */
export interface KeywordRule {
  label: ClassificationLabel;
  weight: number;
  pattern: RegExp;
}

const rule = (label: ClassificationLabel, weight: number, pattern: RegExp): KeywordRule => ({
  label,
  weight,
  pattern,
});

export const KEYWORD_RULES: readonly KeywordRule[] = [
  // Aircraft: designators (F-35, KC-46, P-8A, CH-47, MQ-9 …), airframe parts, engines.
  rule(
    'aircraft',
    3,
    /\b(?:F|FA|F\/A|B|C|KC|EC|RC|HC|MC|AC|E|P|T|H|V|CH|AH|UH|HH|MH|SH|OH|CV|MV|MQ|RQ|U)-\d{1,3}[A-Z]{0,3}\b/,
  ),
  rule(
    'aircraft',
    3,
    /\b(?:F(?:15|16|18|22|35)|KC46|KC135|C130J?|C17|C5M|B52|B1B?|B2A?|B21|P8A?|E2D|E7|V22|CH47F?|CH53K?|AH64[DE]?|UH60[LMV]?|MH60[RS]?|UH1Y|AH1Z|MQ9|MQ4C|MQ25)[A-Z]{0,3}\b/,
  ),
  rule(
    'aircraft',
    3,
    /\b(?:AIRCRAFT|AIRCRAT|AIRFRAMES?|FUSELAGE|AILERON|HELICOPTERS?|ROTORCRAFT|AVIONICS|APACHE|CHINOOK|BLACK ?HAWK|OSPREY|GLOBAL HAWK|TRITON|AWACS|JSTARS|AIRLIFT|TANKER|BIG SAFARI|AIRCR|AIRC|AIR C)\b/,
  ),
  rule(
    'aircraft',
    2,
    /\b(?:RUDDER|LANDING GEAR|FLIGHT|ROTOR|WING|NACELLE|COCKPIT|TURBOFAN|JET ENGINE|T56|T64|T700|LAIRCM|AERIAL|UAS|UAV|FLAP|F\d{3})\b/,
  ),
  rule('aircraft', 2, /\b(?:ENGINES?)\b/),
  // Ships and submarines.
  rule(
    'shipbuilding',
    3,
    /\b(?:SHIPS?|(?:DDG|CVN|SSN|SSBN|LHA|LHD|LPD|LCS|FFG|LCAC)[ -]?\d*|LCU|T-AO|T-AGOS|T-ATS|SUBMARINES?|DESTROYERS?|FRIGATES?|SHIPYARD|SHIPBUILDING|DRY ?DOCK|DRYDOCKING|HULL|VIRGINIA CLASS|COLUMBIA CLASS|USS|USNS|CUTTER|AIRCRAFT CARRIER)\b/,
  ),
  rule(
    'shipbuilding',
    2,
    /\b(?:VESSELS?|BOATS?|NAVAL|CRAFT|MARITIME|AVAILABILITY|SRA|DSRA|PIA|CARRIER ENGINEERING|PROPULSION PLANT|NUCLEAR PROPULSION)\b/,
  ),
  // Missiles, munitions, weapons.
  rule(
    'missiles_munitions',
    3,
    /\b(?:MISSILES?|MUNITIONS?|AMMUNITION|AMMO|ROCKETS?|GMLRS|HIMARS|JAVELIN|STINGER|AMRAAM|AIM-?9X?|AIM-?120|SM-?[236]|ESSM|TOMAHAWK|PATRIOT|PAC-3|THAAD|JASSM|LRASM|MALD|HELLFIRE|JAGM|TOW|GBU-?\d*|JDAM|SDB|BOMBS?|WARHEADS?|FUZES?|FUZING|ORDNANCE|PROJECTILES?|MORTARS?|CARTRIDGES?|PROPELLANT|PROPELLING|EXPLOSIVES?|TORPEDO(?:E?S)?|INTERCEPTORS?|HYPERSONIC|ICBM|GBSD|SENTINEL|TRIDENT|MINUTEMAN|NASAMS|SMALL GLIDE|GLIDE MUNITIONS?|\d{2,3} ?MM)\b/,
  ),
  rule('missiles_munitions', 2, /\b(?:WEAPONS?|ARMAMENT|LAUNCHERS?|GUN|GUNS|AUR|ALL UP ROUND|CHARGES?)\b/),
  // Space.
  rule(
    'space',
    3,
    /\b(?:SPACE|SATELLITES?|SPACECRAFT|ORBIT(?:AL|ER)?|LAUNCH VEHICLES?|LAUNCH SERVICES|LUNAR|MARS|ARTEMIS|ORION|SBIRS|OPIR|GPS III|TELESCOPE|UPPER STAGES?|OSIRIS-REX|NEXTSTEP)\b/,
  ),
  rule('space', 2, /\b(?:PAYLOADS?|INSTRUMENT|LAUNCH|MAGNETO\w*|HELIOPHYSICS|PLANETARY)\b/),
  // Ground vehicles.
  rule('space', 1, /\b(?:NASA|GATEWAY)\b/),
  rule(
    'ground_vehicles',
    3,
    /\b(?:TRUCKS?|PICKUP|SUV|SEDANS?|TIRES?|ABRAMS|STRYKER|BRADLEY|AMPV|JLTV|HMMWV|HUMVEE|M1A2|TACTICAL VEHICLES?|COMBAT VEHICLES?|ARMORED|4X4|6X6|8X8|GVWR|CREW CAB|TRAILERS?|TRACTORS?)\b/,
  ),
  rule('ground_vehicles', 2, /\b(?:VEHICLES?|VANS?|BUS|BUSES|TANKS?|WHEELED|TRACKED|AUTOMOTIVE)\b/),
  // Electronics and communications.
  rule(
    'electronics_comms',
    3,
    /\b(?:RADIOS?|RADARS?|ANTENNAS?|SATCOM|TRANSCEIVERS?|TRANSMITTERS?|RECEIVERS?|AMPLIFIERS?|ELECTRONIC WARFARE|SIGINT|NIGHT VISION|SONAR|INERTIAL|MULTIBAND|HANDSETS?|AN\/[A-Z]{3}-?\d+\w*|RF|EO\/IR|INFRARED|ELECTRO-OPTICAL|PHOTONICS)\b/,
  ),
  rule(
    'electronics_comms',
    2,
    /\b(?:COMMUNICATIONS?|ELECTRONICS?|ELECTRONIC COMPONENTS?|SENSORS?|NAVIGATION|CIRCUIT\w*|CONNECTORS?|ADAPTER,ELECTRICAL|DISPLAY|CONTROL-DISPLAY|INDICATOR|TACTICAL NETWORK|CABLES?|C4ISR|C4I|C4|TELEMETRY|OPTICS|LASERS?|SIGNAL|IMAGING|WAVEFORM)\b/,
  ),
  // IT services and products.
  rule(
    'it_services',
    3,
    /\b(?:SOFTWARE|INFORMATION TECHNOLOGY|CLOUD|IAAS|SAAS|PAAS|DEVOPS|DEVSECOPS|HELP ?DESK|SERVICE DESK|END USER|MAINFRAMES?|LAPTOPS?|COMPUTERS?|SERVERS?|DATABASES?|DATA CENTER|LICENSES?|SUBSCRIPTION|OFFICE365|MICROSOFT|ORACLE|RED HAT|UBUNTU|ATLASSIAN|OKTA|ESRI|SERVICENOW|SALESFORCE|ERP|EHRM|ELECTRONIC HEALTH RECORDS?|ELECTRONIC DENTAL RECORDS?|E-FILE|WEB|WEBSITE|PORTAL|PRINTERS?|LASERJET|SCANNERS?|PROJECTORS?|CISCO|DELL|SRVR|ADPE|PROCESSORS?)\b/,
  ),
  rule('it_services', 2, /\bIT\b/),
  rule(
    'it_services',
    2,
    /\b(?:DATA|NETWORK(?:ING|S)?|APPLICATIONS?|DIGITAL|MODERNIZATION|INFRASTRUCTURE|PLATFORMS?|ENTERPRISE|SYSTEMS? (?:DEVELOPMENT|SUSTAINMENT|INTEGRATION|MODERNIZATION)|TELECOM\w*|ANALYTICS|AUTOMATION|HARDWARE|INTERFACES?|O&M|OPERATIONS AND MAINTENANCE|DEVELOPMENT & OPERATIONS|TECHNOLOGY|INCREMENT \d+)\b/,
  ),
  // Cybersecurity.
  rule(
    'cybersecurity',
    3,
    /\b(?:CYBER\w*|ZERO TRUST|SECURITY OPERATIONS CENTER|SOC|CDM|CONTINUOUS DIAGNOSTICS|PENETRATION TEST\w*|VULNERABILITY|INFORMATION ASSURANCE|INTRUSION|ENCRYPTION|CRYPTO\w*|NETWORK DEFENSE|IDENTITY MANAGEMENT|ICAM)\b/,
  ),
  rule('cybersecurity', 1, /\b(?:SECURITY|DEFEND|A&A|SCRM)\b/),
  // Research and development.
  rule(
    'research_development',
    3,
    /\b(?:RESEARCH|R&D|RDT&E|SBIR|STTR|DARPA|PROTOTYPES?|PROTOTYPING|EXPERIMENT\w*|SCIENCE AND TECHNOLOGY|S&T|TECHNOLOGY DEMONSTRAT\w*|BASIC RESEARCH|ADJUVANT|ANTIBOD\w*|IN VITRO|VACCINES?)\b/,
  ),
  rule(
    'research_development',
    2,
    /\b(?:STUDY|STUDIES|ADVANCED DEVELOPMENT|CONCEPTS?|LABORATORY|PHASE (?:I|II|III|1|2|3)|COMPONENT IMPROVEMENT|TEST METHOD|INNOVATION|NRE|NON-RECURRING ENGINEERING|EMD)\b/,
  ),
  // Construction and facilities.
  rule(
    'construction_facilities',
    3,
    /\b(?:CONSTRUCTION|CONSTRUCT|RENOVAT\w*|ROOF\w*|HVAC|PAVING|DESIGN-BUILD|DESIGN BUILD|MILCON|BARRACKS|DORMITOR\w*|HANGAR|RUNWAY|DEMOLITION|PLUMBING|ARCHITECT\w*|A-E|MATOC|JOC|FIRE ALARMS?|BUILDINGS?|BLDG|WATER LINES?|SEWER|DREDG\w*|JANITORIAL|CUSTODIAL)\b/,
  ),
  rule(
    'construction_facilities',
    2,
    /\b(?:FACILITY|FACILITIES|REPAIR AND ALTERATION|SITE WORK|ELECTRICAL DISTRIBUTION|GROUNDS|UTILITIES|PUBLIC WORKS|ENVIRONMENTAL REMEDIATION|GUARD SERVICES|HEATING)\b/,
  ),
  // Building systems and housing upkeep.
  rule(
    'construction_facilities',
    2,
    /(?:\bA\/CS?\b|\b(?:AIR CONDITIONING|AIR CONDITIONERS?|WATER HEATERS?|DRAINAGE|GOVERNMENT QUARTERS|FAMILY HOUSING|ELEVATORS?)\b)/,
  ),
  // Logistics and supply (spare parts bought through DLA carry "<part number>!NOUN").
  rule('logistics_supply', 1.5, /(?:^|\s)\d{9,10}!|\bNSN\b|\bNOUN:/),
  // Supply-system buying offices (what is left of an FPDS record dump is the office's name).
  rule(
    'logistics_supply',
    2,
    /\b(?:DSC|DSSC|DEFENSE SUPPLY CENTER|SUPPLY CENT(?:ER)?|FISC|DEFENSE ENERGY SUPPORT CENTER|DEFENSE DISTRIBUTION CENTER)\b/,
  ),
  rule('logistics_supply', 1, /\b(?:TOOLING|HANDSAWS?|HAND TOOLS?|TOOL KITS?)\b/),
  rule(
    'logistics_supply',
    2,
    /\b(?:SPARES?|SPARE PARTS|REPAIR PARTS|SUBSISTENCE|FOOD|FUEL|JP-?8|PROPANE|FREIGHT|TRANSPORTATION|WAREHOUS\w*|DISTRIBUTION|SUPPLY|SUPPLIES|LOGISTICS|PBL|PERFORMANCE BASED LOGISTICS|FURNITURE|CHAIRS?|DESKS?|CABINETS?|PAPER|BATTERIES|FIRE EXTINGUISHERS?|LODGING|MOVING)\b/,
  ),
  rule(
    'logistics_supply',
    1,
    /\b(?:ASSEMBLY|BEARING|BUSHING|VALVE|SEAL|NUT|BOLT|STUD|FILTER|GEAR|STIFFENER|SUPPORT,STRUCTURAL|TUBE|MOUNT|LATCH|KIT|MATERIAL|RESIN|CHANNEL|RAIL|SLEEVE|CONTACTOR|GENERATOR|STATOR|MOTOR|CONTROLLER|RESERVOIR|HOSE|PUMP|DUCT|HEAD|CYLINDER|SHROUD|PANEL|GRIP|TOOL|PARTS?)\b/,
  ),
  // Healthcare.
  rule(
    'healthcare',
    3,
    /\b(?:MEDICAL|HOSPITALS?|CLINICS?|CLINICAL|PHARMAC\w*|PATIENTS?|NURS\w*|PHYSICIANS?|DENTAL|TRICARE|HEALTHCARE|HEALTH CARE|MEDICINES?|DRUGS?|DIAGNOSTIC\w*|DISPENSING|SURGICAL|SURGERY|BURNS|TRAUMATIC|DISABILITY EXAM\w*|LABORATORY TESTING|REAGENTS?|RENAL|NEUROLOG\w*|LPN|EMT)\b/,
  ),
  rule('healthcare', 2, /\b(?:HEALTH|CARE|LABORATORY EQUIPMENT|LIQUID HANDLER|CEPHEID|ABBOTT|BIOQUELL)\b/),
  // Professional and administrative services.
  rule(
    'professional_services',
    3,
    /\b(?:CONSULTING|ADVISORY|ADVISORS?|ADMINISTRATIVE|PROGRAM MANAGEMENT|PROGRAM SUPPORT|PROJECT MANAGEMENT|MANAGEMENT SUPPORT|TECHNICAL ASSISTANCE|ACQUISITION SUPPORT|AUDIT\w*|ACCOUNTING|STAFFING|TRAINING|LEGAL|EXPERT WITNESS|ANALYSTS?|SPECIALISTS?|FINANCIAL MANAGEMENT|SETA|A&AS|ENGINEERING SERVICES|ENGINEERING SUPPORT|TECHNICAL SUPPORT|LANGUAGE|TRANSLATION|MARKETING|ADVERTISING|DISASTER|FEMA|PUBLIC ASSISTANCE|OUTREACH|POLICY|STRATEGY)\b/,
  ),
  // Administrative support services.
  rule(
    'professional_services',
    3,
    /\b(?:CLERKS?|CLERICAL|COURT REPORT\w*|COURIERS?|TRANSCRIPTION|RECEPTIONISTS?|SECRETAR\w*|DATA ENTRY)\b/,
  ),
  rule(
    'professional_services',
    2,
    /\b(?:SUPPORT SERVICES|PROFESSIONAL SERVICES|MANAGEMENT|SERVICES|SUPPORT|TASK ORDER|BPA|LABOR|CONTRACTOR|OVERSIGHT|DOCUMENTATION|RECORDS REVIEW|EVALUATION|ASSESSMENT)\b/,
  ),
];

/** NAICS prefixes → label; a hint worth a medium keyword. Longest prefix wins. */
export const NAICS_HINTS: ReadonlyArray<readonly [string, ClassificationLabel]> = [
  ['336411', 'aircraft'],
  ['336412', 'aircraft'],
  ['336413', 'aircraft'],
  ['336414', 'missiles_munitions'],
  ['336415', 'missiles_munitions'],
  ['336419', 'missiles_munitions'],
  ['336611', 'shipbuilding'],
  ['336612', 'shipbuilding'],
  ['33299', 'missiles_munitions'],
  ['3361', 'ground_vehicles'],
  ['3362', 'ground_vehicles'],
  ['3363', 'ground_vehicles'],
  ['336992', 'ground_vehicles'],
  ['3342', 'electronics_comms'],
  ['3344', 'electronics_comms'],
  ['3345', 'electronics_comms'],
  ['5415', 'it_services'],
  ['5182', 'it_services'],
  ['5112', 'it_services'],
  ['5132', 'it_services'],
  ['5417', 'research_development'],
  ['23', 'construction_facilities'],
  ['5413', 'construction_facilities'],
  ['62', 'healthcare'],
  ['3391', 'healthcare'],
  ['3254', 'healthcare'],
  ['42', 'logistics_supply'],
  ['48', 'logistics_supply'],
  ['49', 'logistics_supply'],
  ['5416', 'professional_services'],
  ['5411', 'professional_services'],
  ['5412', 'professional_services'],
  ['5616', 'professional_services'],
  ['6116', 'professional_services'],
];
