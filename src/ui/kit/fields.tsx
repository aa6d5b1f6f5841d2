import { useCallback, useMemo, useState, type ReactNode } from 'react';
import Form from 'react-bootstrap/Form';
import type { ZodType } from 'zod';
import { ApiError } from '../api/http.js';

/**
 * Form fields with validation messages. The server answers 422 'rules' with `fields`
 * ({name: message}); `useFieldErrors().take(err)` keeps them, and each field shows its own.
 */
export interface FieldBase {
  name: string;
  label?: ReactNode;
  /** The message under the field; the field is marked invalid while set. */
  error?: string;
  help?: ReactNode;
  required?: boolean;
  disabled?: boolean;
  className?: string;
  size?: 'sm' | 'lg';
}

export interface TextFieldProps extends FieldBase {
  value: string | number;
  onChange: (value: string) => void;
  type?: 'text' | 'password' | 'number' | 'email' | 'search' | 'date' | 'datetime-local' | 'time' | 'url';
  placeholder?: string;
  autoFocus?: boolean;
  autoComplete?: string;
  /** A textarea with this many rows. */
  rows?: number;
  min?: number;
  max?: number;
  maxLength?: number;
}

export function TextField(p: TextFieldProps) {
  const id = `f-${p.name}`;
  return (
    <Form.Group className={p.className ?? 'mb-2'} controlId={id}>
      {p.label !== undefined && (
        <Form.Label className="mb-1 small fw-semibold">
          {p.label}
          {p.required && <span className="text-danger ms-1">*</span>}
        </Form.Label>
      )}
      <Form.Control
        name={p.name}
        type={p.rows ? undefined : (p.type ?? 'text')}
        as={p.rows ? 'textarea' : undefined}
        rows={p.rows}
        value={p.value}
        onChange={(e) => p.onChange(e.currentTarget.value)}
        isInvalid={!!p.error}
        placeholder={p.placeholder}
        autoFocus={p.autoFocus}
        autoComplete={p.autoComplete}
        required={p.required}
        disabled={p.disabled}
        size={p.size}
        min={p.min}
        max={p.max}
        maxLength={p.maxLength}
      />
      {p.error && <Form.Control.Feedback type="invalid">{p.error}</Form.Control.Feedback>}
      {p.help && !p.error && <Form.Text className="text-secondary">{p.help}</Form.Text>}
    </Form.Group>
  );
}

export interface SelectOption {
  value: string | number;
  label: ReactNode;
}
export interface SelectFieldProps extends FieldBase {
  value: string | number;
  onChange: (value: string) => void;
  options: SelectOption[];
}

export function SelectField(p: SelectFieldProps) {
  const id = `f-${p.name}`;
  return (
    <Form.Group className={p.className ?? 'mb-2'} controlId={id}>
      {p.label !== undefined && <Form.Label className="mb-1 small fw-semibold">{p.label}</Form.Label>}
      <Form.Select name={p.name} value={String(p.value)} onChange={(e) => p.onChange(e.currentTarget.value)} isInvalid={!!p.error} disabled={p.disabled} size={p.size}>
        {p.options.map((o) => (
          <option key={String(o.value)} value={String(o.value)}>
            {typeof o.label === 'string' || typeof o.label === 'number' ? o.label : String(o.value)}
          </option>
        ))}
      </Form.Select>
      {p.error && <Form.Control.Feedback type="invalid">{p.error}</Form.Control.Feedback>}
      {p.help && !p.error && <Form.Text className="text-secondary">{p.help}</Form.Text>}
    </Form.Group>
  );
}

export interface SwitchFieldProps {
  name: string;
  label?: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
  error?: string;
  className?: string;
}

export function SwitchField(p: SwitchFieldProps) {
  return (
    <Form.Check
      type="switch"
      id={`sw-${p.name}`}
      name={p.name}
      label={p.label}
      checked={p.checked}
      disabled={p.disabled}
      isInvalid={!!p.error}
      feedback={p.error}
      feedbackType="invalid"
      className={p.className}
      onChange={(e) => p.onChange(e.currentTarget.checked)}
    />
  );
}

/** A day as the console writes it everywhere ('YYYY-MM-DD'). */
export const DAY_PATTERN = '\\d{4}-\\d{2}-\\d{2}';
const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for '' (no day) and a real calendar day written 'YYYY-MM-DD'. */
export function isDayText(v: string): boolean {
  if (v === '') return true;
  const m = DAY_RE.exec(v);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(y, mo - 1, d);
  return t.getFullYear() === y && t.getMonth() === mo - 1 && t.getDate() === d;
}

export interface DateInputProps {
  id: string;
  value: string;
  onChange: (value: string) => void;
  size?: 'sm' | 'lg';
  isInvalid?: boolean;
  'aria-label'?: string;
}

/**
 * The one date field of the console: a text input in 'yyyy-mm-dd' (the browser's own date input shows
 * the locale's mm/dd/yyyy, unlike every date the console prints). Marked invalid while the text is not
 * a real day; check with `isDayText` before using the value.
 */
export function DateInput(p: DateInputProps) {
  const bad = p.isInvalid || !isDayText(p.value);
  return (
    <Form.Control
      id={p.id}
      type="text"
      inputMode="numeric"
      pattern={DAY_PATTERN}
      placeholder="yyyy-mm-dd"
      maxLength={10}
      autoComplete="off"
      size={p.size}
      value={p.value}
      onChange={(e) => p.onChange(e.currentTarget.value)}
      isInvalid={bad}
      aria-label={p['aria-label']}
      className="app-date-input"
    />
  );
}

export interface FieldErrors {
  errors: Record<string, string>;
  /** The message for one field, if any. */
  of: (name: string) => string | undefined;
  /** Keeps the per-field messages of an ApiError; returns true when it had any. */
  take: (err: unknown) => boolean;
  set: (errors: Record<string, string>) => void;
  clear: (name?: string) => void;
}

export function useFieldErrors(): FieldErrors {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const take = useCallback((err: unknown) => {
    const f = err instanceof ApiError ? err.fields : undefined;
    setErrors(f ?? {});
    return !!f && Object.keys(f).length > 0;
  }, []);
  const clear = useCallback((name?: string) => {
    setErrors((prev) => {
      if (name === undefined) return {};
      if (!(name in prev)) return prev;
      const { [name]: _drop, ...rest } = prev;
      return rest;
    });
  }, []);
  return useMemo(() => ({ errors, of: (n: string) => errors[n], take, set: setErrors, clear }), [errors, take, clear]);
}

/**
 * Validates values in the browser with the same zod schema the server uses (src/contracts);
 * returns {field: message} or null when valid.
 */
export function validate(schema: ZodType, values: unknown): Record<string, string> | null {
  const r = schema.safeParse(values);
  if (r.success) return null;
  const out: Record<string, string> = {};
  for (const issue of r.error.issues) {
    const k = issue.path.join('.') || '_';
    out[k] ??= issue.message;
  }
  return out;
}
