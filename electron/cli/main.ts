/**
 * The `miniharness` command (bin/miniharness.mjs runs its build, out/main/miniharness.js):
 *
 *   miniharness serve --config <file>     the core, the agent gateway and the web UI for a team
 *   miniharness servers list | tools list | call | approvals | history export
 *                                         talk to a running instance (electron/cli/commands.ts)
 *
 * Exit codes: 0 done, 1 the instance refused or the call failed, 2 a usage or configuration error.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServeConfigError, loadServeConfig } from '../serve/config.js';
import { startServe } from '../serve/serve.js';
import { runClientCommand } from './commands.js';

/** The package folder: two up from electron/cli (sources) and from out/main (the build). */
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function fail(message: string, code = 2): never {
  process.stderr.write(`miniharness: ${message}\n`);
  process.exit(code);
}

async function serve(args: string[]): Promise<void> {
  let configFile: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--config') configFile = args[++i];
    else fail(`serve takes --config <file>, not "${args[i]}".`);
  }
  const version = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
  let serving: Awaited<ReturnType<typeof startServe>>;
  try {
    serving = await startServe({
      config: loadServeConfig(configFile, process.env),
      staticDir: join(projectRoot, 'out', 'renderer'),
      version,
    });
  } catch (error) {
    if (error instanceof ServeConfigError) fail(error.message);
    fail(`could not start: ${error instanceof Error ? error.message : String(error)}`, 1);
  }
  const stop = (): void => {
    serving.shutdown().then(
      () => process.exit(0),
      (error: unknown) => fail(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`, 1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'serve') await serve(rest);
else
  process.exitCode = await runClientCommand(
    command,
    rest,
    process.env,
    (text) => process.stdout.write(text),
    (text) => process.stderr.write(text),
  );
