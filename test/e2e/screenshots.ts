/**
 * Screenshots of the browser tests. A test run only checks that each capture is a PNG; the
 * committed images in docs/screenshots/ are rewritten only by `npm run screenshots`
 * (EVALSTREAM_SCREENSHOTS=1), so running the suite never changes the tree.
 */
import { writeFileSync } from 'node:fs'
import { expect } from 'vitest'

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
export const SCREENSHOTS_DIR = new URL('../../docs/screenshots/', import.meta.url)
export const WRITING_SCREENSHOTS = process.env.EVALSTREAM_SCREENSHOTS === '1'

/** @example await keepScreenshot('dashboard-live.png', await page.screenshot()) */
export function keepScreenshot(file: string, png: Buffer): void {
  expect(png.subarray(0, 8).equals(PNG_SIGNATURE), `${file} is not a PNG`).toBe(true)
  if (WRITING_SCREENSHOTS) writeFileSync(new URL(file, SCREENSHOTS_DIR), png)
}
