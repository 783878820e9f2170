/** Plain words for a sandboxed server's profile and for why its sandbox cannot run (issue 29). */
import type { SandboxAdditionReason, SandboxProfileView } from '../../../shared/contract.js';
import type { SandboxReason } from '../../../shared/errors.js';

const REASON_WORDS: Record<SandboxReason, string> = {
  platform_unsupported: 'this operating system has no sandbox for servers',
  windows_per_server_grants: 'on Windows the sandbox cannot give each server its own files yet',
  bubblewrap_missing: 'bubblewrap is not installed (the “bubblewrap” package)',
  socat_missing: 'socat is not installed (the “socat” package)',
  ripgrep_missing: 'ripgrep is not installed (the “ripgrep” package, rg)',
  dependency_failed: 'a program the sandbox needs does not work here',
  sandbox_failed: 'the sandbox could not start here (for example, user namespaces are refused)',
  argument_unquotable: 'one of its arguments cannot be passed to the sandbox (a NUL character)',
  host_invalid: 'one of its hosts is refused by the sandbox',
};

/** Why a server's sandbox cannot run, in words. */
export function sandboxReasonWords(reason: SandboxReason): string {
  return REASON_WORDS[reason];
}

const ADDITION_WORDS: Record<SandboxAdditionReason, string> = {
  own_folder: 'Its own folder (its TMPDIR is there)',
  roots: 'The roots you gave it',
  command_install: 'The folder its program is installed in',
  working_folder: 'Its working folder',
  launcher_script: 'The script it runs, and its package',
  launcher_npm_cache: 'The npm cache, where npx keeps the packages it runs',
  launcher_npm_registry: 'The npm registry, for a first download',
  launcher_uv_cache: 'The cache of uv and the Pythons it installs',
  launcher_pypi: 'The Python package index, for a first download',
  listed: 'What you listed in its Sandbox section',
};

export function additionWords(addition: SandboxProfileView['additions'][number]): string {
  const words = ADDITION_WORDS[addition.reason];
  return addition.launcher ? `${addition.launcher} — ${words.charAt(0).toLowerCase()}${words.slice(1)}` : words;
}
