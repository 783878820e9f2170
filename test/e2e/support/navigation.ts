/** Steps every GUI spec takes the way a person does: the main navigation, an agent added. */
import type { Page } from '@playwright/test';
import { expect } from '@playwright/test';

/** Opens a view from the main navigation and waits for its heading. */
export async function openView(page: Page, name: string): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: new RegExp(`^${name}`) })
    .click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
}

/** Adds an agent from the Agents view; returns the token its dialog shows once (the dialog stays open). */
export async function addAgent(page: Page, name: string): Promise<string> {
  await page.getByRole('button', { name: 'Add agent' }).first().click();
  const form = page.getByRole('dialog', { name: 'Add an agent' });
  await form.getByLabel('Name').fill(name);
  await form.getByRole('button', { name: 'Add agent' }).click();
  const created = page.getByRole('dialog', { name: `Agent “${name}” added` });
  await expect(created.getByText('Copy the token now: you will not see it again')).toBeVisible();
  const token = await created.getByLabel('Token').inputValue();
  expect(token).toMatch(/^mhg_/);
  return token;
}
