/** `catalog.*`: the MCP Registry catalog and one-step installs (electron/catalog/). */
import type { CatalogService } from '../../catalog/catalogService.js';
import type { Handlers } from '../dispatcher.js';

type CatalogChannels =
  | 'catalog.search'
  | 'catalog.plan'
  | 'catalog.install'
  | 'catalog.updates'
  | 'catalog.previewUpdate'
  | 'catalog.applyUpdate'
  | 'catalog.registries'
  | 'catalog.setRegistries';

export function catalogHandlers(deps: { catalog: CatalogService }): Pick<Handlers, CatalogChannels> {
  const { catalog } = deps;
  return {
    'catalog.search': ({ search, refresh }) => catalog.search(search, refresh),
    'catalog.plan': (ref) => catalog.plan(ref),
    'catalog.install': (request) => catalog.install(request),
    'catalog.updates': () => catalog.updates(),
    'catalog.previewUpdate': ({ serverId }) => catalog.previewUpdate(serverId),
    'catalog.applyUpdate': ({ serverId, version, values }) => catalog.applyUpdate(serverId, version, values),
    'catalog.registries': () => ({ registries: catalog.registries() }),
    'catalog.setRegistries': ({ registries }) => ({ registries: catalog.setRegistries(registries) }),
  };
}
