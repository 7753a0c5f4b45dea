/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  setupFiles: ['reflect-metadata', '<rootDir>/src/platform/sql/orm-contexts.ts'],
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
  // Each test file leaves its whole module graph behind in the worker (about 30-45 MB after a full GC:
  // vm contexts kept alive across files, a known Jest leak), so a worker reached a 2.6-2.8 GB heap by the
  // end of the run, and tearing that heap down at exit took longer than the 500 ms Jest waits before it
  // force-exits a worker ("A worker process has failed to exit gracefully"). A worker past this much
  // heap after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '1GB',
};
