// Vercel Edge Functions expose environment variables on `process.env`, and nothing else of `process`.
declare const process: { env: Record<string, string | undefined> }
