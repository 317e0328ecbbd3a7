// pg's own conversion of a parameter to its wire text (dates, booleans, arrays, JSON), which its
// Query uses and which pg_statement.ts uses too; pg ships no types for this module.
declare module 'pg/lib/utils.js' {
  export function prepareValue(value: unknown): unknown;
}
