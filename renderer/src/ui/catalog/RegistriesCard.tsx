/** The registries the catalog asks, in order (the official one by default): one URL per line. */
import { useEffect, useState } from 'react';
import { useAppStore } from '../../state/useAppStore.js';
import { Field, FieldErrorText, controlProps } from '../components/Field.js';

export function RegistriesCard() {
  const urls = useAppStore((s) => s.catalogRegistryUrls);
  const load = useAppStore((s) => s.loadCatalogRegistries);
  const save = useAppStore((s) => s.saveCatalogRegistries);
  const search = useAppStore((s) => s.searchCatalog);
  const lastSearch = useAppStore((s) => s.catalogSearchText);
  const [text, setText] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    void load();
  }, [load]);

  const shown = text ?? urls.join('\n');
  return (
    <details className="catalog-registries">
      <summary>Registries</summary>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const list = shown
            .split('\n')
            .map((l) => l.trim())
            .filter(Boolean);
          void save(list).then((failure) => {
            setError(failure);
            if (!failure) {
              setText(undefined);
              void search(lastSearch, true);
            }
          });
        }}
      >
        <Field
          id="catalog-registries"
          label="Registries, in order"
          hint="One URL per line; each serves the MCP Registry v0.1 API (a company's own, for example)."
          errors={[]}
        >
          <textarea
            {...controlProps('catalog-registries', error ? [error] : [], true)}
            rows={3}
            value={shown}
            onChange={(e) => setText(e.target.value)}
          />
          <FieldErrorText id="catalog-registries" errors={error ? [error] : []} />
        </Field>
        <button type="submit" className="btn">
          Save registries
        </button>
      </form>
    </details>
  );
}
