// Public face of the emulator's synthetic market.

export { createMarketModel } from './model.js';
export { gammaProfile, zeroCrossings, primaryFlip, DEFAULT_PROFILE_GRID } from './profile.js';
export type { GammaProfile, ProfileGrid, ProfileLeg } from './profile.js';
export { expirationCode, EXPIRATION_GRACE_MS } from './expirations.js';
export { formatCsvNumber, roundTo } from './numbers.js';
export { FILE_HEADERS, formatTimestamp, SCHEMA_VERSION } from './files.js';
export { SYMBOL_SPECS, venuesOfHistoryExchange } from './catalog.js';
export * from './types.js';
export { LAYOUT_NAMES, extraValue, isTextExtra, type CustomLayout, type FileLayoutOption, type LayoutName } from './layouts.js';
