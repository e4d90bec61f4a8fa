import { fileURLToPath } from 'node:url';

import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

const electronFake = fileURLToPath(new URL('./test/fakes/electron.ts', import.meta.url));

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Two shared cores: more workers only make every test slower.
    maxWorkers: 2,
    // The AWS SDK warns on every process that its 2027 releases will need Node 22.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      {
        // The real `electron` package throws without its binary; main-side tests use one fake.
        resolve: { alias: { electron: electronFake } },
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          // A shared, busy machine can take seconds to show what a user waits for: expect.poll's
          // one second default made waits for a transfer row fail under load.
          expect: { poll: { timeout: 20_000 } },
        },
      },
      {
        // Renderer state and components: Svelte compiled for the browser, in jsdom.
        plugins: [svelte()],
        resolve: { conditions: ['browser'] },
        test: {
          name: 'renderer',
          include: ['src-renderer/**/*.test.ts'],
          environment: 'jsdom',
          // Compiling components on two busy cores can take seconds; no test is timed.
          testTimeout: 30_000,
        },
      },
    ],
  },
});
