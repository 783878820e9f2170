/** Drives the Add/Edit server dialog the way a person does: by labels and buttons. */
import type { Locator, Page } from '@playwright/test';

export function serverDialog(page: Page): Locator {
  return page.getByRole('dialog');
}

export async function openAddServer(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Add server' }).first().click();
  const dialog = serverDialog(page);
  await dialog.waitFor();
  return dialog;
}

export async function fillStdio(
  dialog: Locator,
  server: { name: string; command: string; args: string[]; enabled?: boolean },
): Promise<void> {
  await dialog.getByLabel('Name', { exact: true }).fill(server.name);
  await dialog.getByRole('radio', { name: /Local process/ }).check();
  await dialog.getByLabel('Command', { exact: true }).fill(server.command);
  for (const [index, arg] of server.args.entries()) {
    await dialog.getByRole('button', { name: 'Add argument' }).click();
    await dialog.getByLabel(`Argument ${index + 1}`, { exact: true }).fill(arg);
  }
  if (server.enabled === false) await dialog.getByRole('checkbox', { name: /^Enabled/ }).uncheck();
}

export async function fillHttp(dialog: Locator, server: { name: string; url: string; token?: string }): Promise<void> {
  await dialog.getByLabel('Name', { exact: true }).fill(server.name);
  await dialog.getByRole('radio', { name: /Remote/ }).check();
  await dialog.getByLabel('URL', { exact: true }).fill(server.url);
  if (server.token !== undefined) {
    await dialog.getByRole('checkbox', { name: /^Bearer token/ }).check();
    await dialog.getByLabel('Bearer token', { exact: true }).fill(server.token);
  }
}

/** The row of a server in the list (its button: name, transport, tools, status). */
export function serverRow(page: Page, name: string): Locator {
  return page.getByRole('navigation', { name: 'Server list' }).getByRole('button', { name: new RegExp(name) });
}

/** The detail pane of the selected server. */
export function serverDetail(page: Page, name: string): Locator {
  return page.getByRole('region', { name: `Server ${name}` });
}
