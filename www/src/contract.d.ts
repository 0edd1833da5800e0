// Types of contract.js ("sift-search/contract.js"): the contract's limits and error codes,
// generated from the engine.

/** The contract's limits. */
export declare const LIMITS: Readonly<{
  maxQueryBytes: number;
  maxClauses: number;
  maxLimit: number;
  defaultLimit: number;
  maxOffset: number;
  maxMultiQueries: number;
  maxHostRounds: number;
  maxShardPayload: number;
}>;
/** Every error code with its HTTP status and meaning. */
export declare const ERRORS: Readonly<Record<string, Readonly<{ status: number; meaning: string }>>>;
/** HTTP status of an error code (500 for an unknown one). */
export declare function statusOf(code: string): number;
/** Whether an error code means the caller is at fault (4xx). */
export declare function isClientError(code: string): boolean;
