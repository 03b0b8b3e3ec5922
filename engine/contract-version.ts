// The version of the API contract (the OpenAPI document's info.version), which every API answer names in its
// API-Version header. Raise the major part for a change that breaks callers: `npm run contract` compares
// the document with the released one (openapi/released.json) and refuses a breaking change under the same major.
export const CONTRACT_VERSION = '0.2.0';

/** The header's name, as every answer writes it. */
export const VERSION_HEADER = 'API-Version';
