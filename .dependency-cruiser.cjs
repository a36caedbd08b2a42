// The import floors of the product (src/) and the emulator beside it, as dependency-cruiser rules:
// `npm run lint` runs them (`depcruise src emulator`) and an editor with the extension shows them.
// Each folder of src/ stands on a floor and imports only folders on lower floors; folders on one
// floor never import each other; the emulator stands apart (it imports only the NYSE calendar of
// the product, and only the CLI imports it); no files import each other in a loop. `import type`
// counts like any import: a type that must come from above is a shape in the wrong place.

/** The floors, top down: a folder may import the folders of the floors below its own. */
const FLOORS = {
  cli: 7,
  sync: 6,
  capture: 6,
  export: 6,
  doctor: 6,
  charts: 6,
  desk: 6,
  alerts: 6,
  journal: 5,
  api: 4,
  warehouse: 4,
  core: 3,
  time: 2,
  calendar: 1,
};

const folders = Object.keys(FLOORS);
const any = (names) => `^src/(${names.join('|')})/`;

/** One rule per folder: nothing on its own floor but itself, nothing above it. */
const floorRules = folders.map((folder) => {
  const above = folders.filter((other) => FLOORS[other] > FLOORS[folder]);
  const beside = folders.filter((other) => other !== folder && FLOORS[other] === FLOORS[folder]);
  const below = folders.filter((other) => FLOORS[other] < FLOORS[folder]);
  return {
    name: `floor-${folder}`,
    comment:
      `src/${folder} stands on floor ${FLOORS[folder]}: it imports only ${below.length === 0 ? 'nothing of gexwh' : below.map((f) => `src/${f}`).join(', ')}` +
      (beside.length === 0 ? '' : `; ${beside.map((f) => `src/${f}`).join(', ')} share its floor and must not lean on it`),
    severity: 'error',
    from: { path: `^src/${folder}/` },
    to: { path: any([...above, ...beside]) },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...floorRules,
    {
      name: 'no-floor',
      comment: 'a file of src/ outside the folders of the floors stands on no floor: give its folder one in FLOORS (.dependency-cruiser.cjs)',
      severity: 'error',
      from: { path: '^src/', pathNot: any(folders) },
      to: { path: '^(src|emulator)/' },
    },
    {
      name: 'to-no-floor',
      comment: 'an import of a file of src/ outside the folders of the floors: give its folder one in FLOORS (.dependency-cruiser.cjs)',
      severity: 'error',
      from: { path: '^(src|emulator)/' },
      to: { path: '^src/', pathNot: any(folders) },
    },
    {
      name: 'emulator-apart',
      comment: 'the emulator is a peer of the API, apart from the product: of src/ it may import only src/calendar',
      severity: 'error',
      from: { path: '^emulator/' },
      to: { path: '^src/', pathNot: '^src/calendar/' },
    },
    {
      name: 'emulator-only-from-cli',
      comment: 'only src/cli (emulate, demo) may import the emulator',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^emulator/' },
    },
    {
      name: 'no-cycle',
      comment: 'files that import each other in a loop (type-only imports included)',
      severity: 'error',
      from: { path: '^(src|emulator)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    // `import type` and type-only uses count: the compiler's view before it erases them.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
