/// <reference types="node" />
/**
 * @module
 * Once per `npm run test:package`: packs the package as `npm publish` would — `npm pack` runs `prepack`
 * (a clean build) — from a copy of the checkout, so the checkout's own dist/ is left alone, and hands the
 * tarball to the test files. Everything the run installs goes under one scratch directory, removed at the
 * end (kept with KEEP_PACKAGE_TEST=1, to look inside).
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The packed package (`hono-waiting-room-<version>.tgz`). */
    tarball: string
    /** This run's scratch directory. */
    work: string
    /** The copy of the checkout that was packed (its node_modules is the checkout's). */
    stage: string
  }
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
/** What `npm pack` needs of the checkout: the build's inputs and the files the tarball takes from the root. */
const STAGED = ['package.json', 'README.md', 'LICENSE', 'tsconfig.json', 'tsconfig.build.json', 'src', 'adapters', 'bin']

export default function setup(project: TestProject): () => void {
  const work = mkdtempSync(join(tmpdir(), 'wr-package-'))
  const stage = join(work, 'stage')
  for (const entry of STAGED) {
    cpSync(join(ROOT, entry), join(stage, entry), { recursive: true, filter: (path) => !/(^|\/)node_modules(\/|$)|\.db(-wal|-shm)?$/.test(path) })
  }
  symlinkSync(join(ROOT, 'node_modules'), join(stage, 'node_modules'))
  const pack = spawnSync('npm', ['pack', '--json', '--pack-destination', work, '--loglevel=error'], { cwd: stage, encoding: 'utf8', timeout: 240_000 })
  if (pack.status !== 0) throw new Error(`npm pack failed (exit ${pack.status}):\n${pack.stdout}\n${pack.stderr}`)
  const [{ filename }] = JSON.parse(pack.stdout) as [{ filename: string }]
  project.provide('tarball', join(work, filename))
  project.provide('work', work)
  project.provide('stage', stage)
  return () => {
    if (process.env.KEEP_PACKAGE_TEST !== '1') rmSync(work, { recursive: true, force: true })
  }
}
