import Form from 'react-bootstrap/Form';
import type { Paged } from '../../../contracts/auth.js';
import { NET_LIMIT_MAX, type NetHost } from '../../../contracts/network-info.js';
import { isStorageAlias, storageUrl } from '../../../contracts/storage.js';
import { useRpc } from '../../api/hooks.js';
import { TextField } from '../../kit/fields.js';
import { ImageEditor } from '../../kit/ImageEditor.js';
import './api.js';

/** Every host (for the host selects and filters), by Id. */
export function useHosts() {
  const r = useRpc('network_info.Host.get', { select: 'Id,name,domain,code_in_storage', limit: NET_LIMIT_MAX });
  const list = ((r.data as Paged<Partial<NetHost>> | undefined)?.list ?? []) as NetHost[];
  return { ...r, hosts: list };
}

export const hostLabel = (h: Pick<NetHost, 'name' | 'domain'>) => (h.name && h.name !== h.domain ? `${h.name} (${h.domain})` : h.domain);

/** The host filter of the lists (`host` in the URL; '' = every host). */
export function HostFilter({ value, onChange, hosts }: { value: string; onChange: (v: string) => void; hosts: NetHost[] }) {
  return (
    <Form.Select size="sm" aria-label="Host" name="host-filter" value={value} onChange={(e) => onChange(e.currentTarget.value)} style={{ maxWidth: 320 }}>
      <option value="">All hosts</option>
      {hosts.map((h) => <option key={h.Id} value={String(h.Id)}>{hostLabel(h)}</option>)}
      {value && !hosts.some((h) => String(h.Id) === value) && <option value={value}>Host #{value}</option>}
    </Form.Select>
  );
}

/** The host select of the page and category forms (001 §5: the form submits only once a host is chosen). */
export function HostSelect({ value, onChange, hosts, error }: { value: string; onChange: (v: string) => void; hosts: NetHost[]; error?: string }) {
  return (
    <Form.Group className="mb-2" controlId="f-host">
      <Form.Label className="mb-1 small fw-semibold">host<span className="text-danger ms-1">*</span></Form.Label>
      <Form.Select name="host" value={value} isInvalid={!!error} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">Choose a host…</option>
        {hosts.map((h) => <option key={h.Id} value={String(h.Id)}>{hostLabel(h)}</option>)}
      </Form.Select>
      {error && <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>}
    </Form.Group>
  );
}

/** The cover: an alias field, and its image only when the alias is a stored image's (32 characters, 001 §4). */
export function CoverField({ value, onChange, error }: { value: string; onChange: (v: string) => void; error?: string }) {
  return (
    <div className="mb-2">
      <TextField name="cover" label="cover" value={value} error={error} maxLength={32} onChange={(v) => onChange(v.trim())}
        help="The alias of a stored image (32 characters), or empty." />
      {isStorageAlias(value) && (
        <img src={storageUrl(value)} alt="Cover preview" data-testid="cover-preview" className="img-thumbnail mt-1" style={{ maxWidth: 240, maxHeight: 160 }} />
      )}
    </div>
  );
}

/**
 * The image editor of the kit twice, for the host chosen: "Insert image" stores an image and hands its
 * URL to `onInsert` (the form adds an <img> to the body), "Cover" stores one and sets the cover alias.
 * Without a host there is no storage code to send to: the buttons wait for one.
 */
export function ImageTools({ hostId, host, onInsert, onCover }: {
  hostId: number; host: NetHost | undefined; onInsert: (url: string) => void; onCover: (alias: string) => void;
}) {
  if (!hostId) return <div className="small text-secondary mb-2" data-testid="images-need-host">Choose a host to add images.</div>;
  if (!host) return null; // the host list is still loading
  const code = host.code_in_storage || host.domain;
  return (
    <div className="d-flex flex-wrap gap-2 mb-2" data-testid="image-tools">
      {/* The body gets this console's own URL (shown by the editor here); the server stores {storage:<alias>} either way. */}
      <ImageEditor codeInStorage={code} domain={host.domain} label="Insert image" onStored={(alias) => onInsert(storageUrl(alias))} />
      <ImageEditor codeInStorage={code} domain={host.domain} label="Cover" onStored={(alias) => onCover(alias)} />
    </div>
  );
}
