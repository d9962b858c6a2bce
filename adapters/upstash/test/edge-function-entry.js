// Bundled for edge-runtime: the Vercel example's Edge Function exactly as deployed. Plain JS: the
// example imports the package by name, which only the bundler's aliases resolve, not the typecheck.
import handler from '../../../examples/vercel-edge/api/index.ts'
import { serveFetch } from './edge-globals.ts'

serveFetch(handler)
