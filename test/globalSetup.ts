import { buildFixtureServers } from './helpers/buildFixtures.js';

export default async function setup(): Promise<void> {
  await buildFixtureServers();
}
