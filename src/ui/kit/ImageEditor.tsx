import { useCallback, useEffect, useRef, useState } from 'react';
import Button from 'react-bootstrap/Button';
import ButtonGroup from 'react-bootstrap/ButtonGroup';
import Form from 'react-bootstrap/Form';
import ProgressBar from 'react-bootstrap/ProgressBar';
import Cropper, { type Area } from 'react-easy-crop';
import { MSG } from '../../contracts/messages.js';
import { STORAGE_MSG, type FilesSendInput, type StoredImage } from '../../contracts/storage.js';
import { errorText } from '../api/http.js';
import { rpc } from '../api/rpc.js';
import { AppModal } from './AppModal.js';
import { notify } from './notify.js';

/** Props of the crop editor (H2's page and category forms rely on them; keep them as they are). */
export interface ImageEditorProps {
  codeInStorage: string;
  domain: string;
  /** called with the stored alias and its URL after a successful send */
  onStored: (alias: string, url: string) => void;
  /** optional: replace this alias */
  replaceAlias?: string;
  /** button label, default 'Image editor' */
  label?: string;
}

/** The crop frames of 001 §4. */
export const IMAGE_EDITOR_ASPECTS = [{ label: '16:9', value: 16 / 9 }, { label: '4:3', value: 4 / 3 }] as const;
/** Zoom steps of 0.1 (001 §4) between these bounds. */
export const IMAGE_EDITOR_ZOOM = { min: 1, max: 3, step: 0.1 } as const;
/** Rotation buttons, in degrees (45 or 90, either way). */
export const IMAGE_EDITOR_ROTATIONS = [-90, -45, 45, 90] as const;
/** The longest side of the saved picture: a larger crop is scaled down to it (the storage caps bytes, STORAGE_MAX_MB). */
export const IMAGE_EDITOR_MAX_SIDE = 4096;
const PREVIEW_SIDE = 240;

const rad = (deg: number) => (deg * Math.PI) / 180;
const round1 = (n: number) => Math.round(n * 10) / 10;

/** The bounding box of a w × h picture turned by `rotation` degrees. */
function rotatedSize(w: number, h: number, rotation: number) {
  const r = rad(rotation);
  return { width: Math.abs(Math.cos(r) * w) + Math.abs(Math.sin(r) * h), height: Math.abs(Math.sin(r) * w) + Math.abs(Math.cos(r) * h) };
}

/**
 * Draws the crop `area` (pixels of the turned picture's bounding box, as react-easy-crop reports them)
 * of `img` turned by `rotation` onto a canvas of at most `maxSide` pixels a side, and encodes it as
 * `type` (JPEG on white: the corners a 45° turn uncovers are not black).
 */
function renderCrop(img: HTMLImageElement, area: Area, rotation: number, type: 'image/jpeg' | 'image/png', maxSide: number): Promise<Blob> {
  const scale = Math.min(1, maxSide / Math.max(area.width, area.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(area.width * scale));
  canvas.height = Math.max(1, Math.round(area.height * scale));
  const ctx = canvas.getContext('2d');
  if (!ctx) return Promise.reject(new Error('This browser cannot draw on a canvas'));
  if (type === 'image/jpeg') {
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
  }
  const box = rotatedSize(img.naturalWidth, img.naturalHeight, rotation);
  ctx.imageSmoothingQuality = 'high';
  ctx.scale(scale, scale);
  ctx.translate(-area.x, -area.y);
  ctx.translate(box.width / 2, box.height / 2);
  ctx.rotate(rad(rotation));
  ctx.translate(-img.naturalWidth / 2, -img.naturalHeight / 2);
  ctx.drawImage(img, 0, 0);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('The picture could not be encoded'))), type, 0.92));
}

function dataUrlOf(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.onerror = () => reject(r.error ?? new Error('The picture could not be read'));
    r.readAsDataURL(blob);
  });
}

function loadImage(src: string): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error('The file is not a picture this browser can show'));
    img.src = src;
  });
}

/** PNG stays PNG (transparency); JPEG stays JPEG; WebP and GIF are saved as PNG. */
const outputType = (file: File): 'image/jpeg' | 'image/png' => (file.type === 'image/jpeg' ? 'image/jpeg' : 'image/png');
const outputName = (file: File, type: string) => `${file.name.replace(/\.[^.]*$/, '') || 'image'}.${type === 'image/jpeg' ? 'jpg' : 'png'}`;

type Stage = 'idle' | 'rendering' | 'sending';

/**
 * The crop editor of 001 §4 (react-easy-crop): a button that opens a modal to choose a picture, see
 * it, crop it at 16:9 or 4:3, zoom in steps of 0.1, turn it by 45 or 90 degrees, and Save: the cropped,
 * turned area is drawn on a canvas (JPEG for a JPEG, else PNG) and sent to the storage with
 * `network_info.Files.send` (one Save renders and sends). On success `onStored(alias, url)` gets the
 * stored image and the modal closes; an answer without an alias is the error of 001 §8.
 */
export function ImageEditor({ codeInStorage, domain, onStored, replaceAlias, label = 'Image editor' }: ImageEditorProps) {
  const [show, setShow] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const [src, setSrc] = useState<string | null>(null);
  const [crop, setCrop] = useState({ x: 0, y: 0 });
  const [zoom, setZoom] = useState<number>(IMAGE_EDITOR_ZOOM.min);
  const [rotation, setRotation] = useState(0);
  const [aspect, setAspect] = useState<number>(IMAGE_EDITOR_ASPECTS[0].value);
  const [area, setArea] = useState<Area | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [stage, setStage] = useState<Stage>('idle');
  const [error, setError] = useState<string | null>(null);
  const imgRef = useRef<HTMLImageElement | null>(null);
  const previewSeq = useRef(0);

  // Object URLs are this component's: released when replaced or closed.
  useEffect(() => () => { if (src) URL.revokeObjectURL(src); }, [src]);
  useEffect(() => () => { if (preview) URL.revokeObjectURL(preview); }, [preview]);

  const reset = () => {
    setFile(null);
    setSrc(null);
    setPreview(null);
    setArea(null);
    setCrop({ x: 0, y: 0 });
    setZoom(IMAGE_EDITOR_ZOOM.min);
    setRotation(0);
    setError(null);
    imgRef.current = null;
  };
  const close = () => {
    if (stage !== 'idle') return;
    setShow(false);
    reset();
  };

  const choose = async (f: File | undefined) => {
    reset();
    if (!f) return;
    const url = URL.createObjectURL(f);
    try {
      imgRef.current = await loadImage(url);
      setFile(f);
      setSrc(url);
    } catch (e) {
      URL.revokeObjectURL(url);
      setError(errorText(e));
    }
  };

  // A small picture of what Save will send, redrawn when a crop gesture ends.
  const onCropComplete = useCallback((_a: Area, pixels: Area) => {
    setArea(pixels);
    const img = imgRef.current;
    if (!img || !file) return;
    const seq = ++previewSeq.current;
    renderCrop(img, pixels, rotation, 'image/png', PREVIEW_SIDE).then(
      (b) => { if (seq === previewSeq.current) setPreview(URL.createObjectURL(b)); },
      () => undefined,
    );
  }, [file, rotation]);

  const save = async () => {
    const img = imgRef.current;
    if (!img || !file || !area) return;
    setError(null);
    try {
      setStage('rendering');
      const type = outputType(file);
      const blob = await renderCrop(img, area, rotation, type, IMAGE_EDITOR_MAX_SIDE);
      const args: FilesSendInput = { code_in_storage: codeInStorage, domain, file_name: outputName(file, type), file_data: await dataUrlOf(blob) };
      if (replaceAlias) args.alias = replaceAlias;
      setStage('sending');
      const res = await rpc<StoredImage[]>('network_info.Files.send', args, { timeoutMs: 120_000 });
      const stored = Array.isArray(res) ? res[0] : undefined;
      if (!stored?.alias) {
        setError(STORAGE_MSG.noAlias);
        notify.error(STORAGE_MSG.noAlias);
        return;
      }
      notify.success(MSG.saveOk);
      onStored(stored.alias, stored.url);
      setShow(false);
      reset();
    } catch (e) {
      const text = errorText(e);
      setError(text);
      notify.error(text);
    } finally {
      setStage('idle');
    }
  };

  const busy = stage !== 'idle';
  const zoomTo = (z: number) => setZoom(Math.min(IMAGE_EDITOR_ZOOM.max, Math.max(IMAGE_EDITOR_ZOOM.min, round1(z))));
  const turn = (deg: number) => setRotation((r) => { const n = (r + deg) % 360; return n < 0 ? n + 360 : n; });

  return (
    <>
      <Button size="sm" variant="outline-primary" onClick={() => setShow(true)} data-testid="image-editor-open">
        {label}
      </Button>
      <AppModal
        show={show}
        onHide={close}
        title="Image editor"
        staticBackdrop
        footer={
          <>
            <Button size="sm" variant="outline-secondary" onClick={close} disabled={busy}>Cancel</Button>
            <Button size="sm" onClick={save} disabled={busy || !src || !area} data-testid="image-editor-save">Save</Button>
          </>
        }
      >
        <div data-testid="image-editor">
          <Form.Group className="mb-2" controlId="image-editor-file">
            <Form.Label className="small mb-1">Image file (JPEG, PNG, WebP or GIF)</Form.Label>
            <Form.Control type="file" size="sm" accept="image/jpeg,image/png,image/webp,image/gif" data-testid="image-editor-file" disabled={busy}
              onChange={(e) => void choose((e.target as HTMLInputElement).files?.[0])} />
          </Form.Group>
          {src && (
            <>
              <div className="position-relative bg-dark rounded mb-2" style={{ height: 340 }} data-testid="image-editor-crop">
                <Cropper image={src} crop={crop} zoom={zoom} rotation={rotation} aspect={aspect}
                  minZoom={IMAGE_EDITOR_ZOOM.min} maxZoom={IMAGE_EDITOR_ZOOM.max} zoomSpeed={IMAGE_EDITOR_ZOOM.step}
                  onCropChange={setCrop} onZoomChange={zoomTo} onRotationChange={setRotation} onCropComplete={onCropComplete} />
              </div>
              <div className="d-flex flex-wrap gap-3 align-items-center mb-2">
                <ButtonGroup size="sm" aria-label="Crop frame">
                  {IMAGE_EDITOR_ASPECTS.map((a) => (
                    <Button key={a.label} variant={aspect === a.value ? 'secondary' : 'outline-secondary'} aria-pressed={aspect === a.value} disabled={busy} onClick={() => setAspect(a.value)}>
                      {a.label}
                    </Button>
                  ))}
                </ButtonGroup>
                <div className="d-flex align-items-center gap-1">
                  <Button size="sm" variant="outline-secondary" aria-label="Zoom out" disabled={busy || zoom <= IMAGE_EDITOR_ZOOM.min} onClick={() => zoomTo(zoom - IMAGE_EDITOR_ZOOM.step)}>−</Button>
                  <Form.Range aria-label="Zoom" min={IMAGE_EDITOR_ZOOM.min} max={IMAGE_EDITOR_ZOOM.max} step={IMAGE_EDITOR_ZOOM.step} value={zoom} disabled={busy}
                    style={{ width: 140 }} data-testid="image-editor-zoom-range" onChange={(e) => zoomTo(Number(e.target.value))} />
                  <Button size="sm" variant="outline-secondary" aria-label="Zoom in" disabled={busy || zoom >= IMAGE_EDITOR_ZOOM.max} onClick={() => zoomTo(zoom + IMAGE_EDITOR_ZOOM.step)}>+</Button>
                  <span className="small text-secondary ms-1">Zoom <span data-testid="image-editor-zoom">{zoom.toFixed(1)}</span>×</span>
                </div>
                <ButtonGroup size="sm" aria-label="Rotate">
                  {IMAGE_EDITOR_ROTATIONS.map((d) => (
                    <Button key={d} variant="outline-secondary" disabled={busy} title={`Rotate ${d > 0 ? 'clockwise' : 'counter-clockwise'} by ${Math.abs(d)}°`} onClick={() => turn(d)}>
                      {d > 0 ? `+${d}` : String(d)}
                    </Button>
                  ))}
                </ButtonGroup>
                <span className="small text-secondary">Rotation <span data-testid="image-editor-rotation">{rotation}</span>°</span>
              </div>
              {preview && (
                <div className="small text-secondary mb-2">
                  Preview{area ? ` (${Math.round(area.width)} × ${Math.round(area.height)})` : ''}:{' '}
                  <img src={preview} alt="Preview of the cropped picture" data-testid="image-editor-preview" style={{ maxWidth: PREVIEW_SIDE, maxHeight: PREVIEW_SIDE, verticalAlign: 'top' }} />
                </div>
              )}
            </>
          )}
          {busy && (
            <ProgressBar animated striped now={stage === 'rendering' ? 30 : 100} label={stage === 'rendering' ? 'Preparing the picture…' : 'Sending to storage…'} data-testid="image-editor-progress" />
          )}
          {error && <div className="text-danger small mt-2" role="alert" data-testid="image-editor-error">{error}</div>}
        </div>
      </AppModal>
    </>
  );
}

export default ImageEditor;
