import Image from '@tiptap/extension-image';
import { EditorContent, useEditor, type Editor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useEffect } from 'react';
import { Button, ButtonGroup, Form } from 'react-bootstrap';

export interface RichTextProps {
  /** HTML (what the server stored, already sanitised there). */
  value: string;
  onChange: (html: string) => void;
  label?: string;
  /** A field error message (from the server's `fields`). */
  error?: string;
  id?: string;
  minHeight?: number;
  disabled?: boolean;
}

/** One toolbar button: active state from the editor, the command on click. */
function Tool({ editor, label, title, active, run }: { editor: Editor; label: string; title: string; active?: boolean; run: (e: Editor) => void }) {
  return (
    <Button size="sm" variant={active ? 'secondary' : 'outline-secondary'} title={title} aria-label={title} aria-pressed={!!active}
      onMouseDown={(ev) => ev.preventDefault()} onClick={() => run(editor)}>
      {label}
    </Button>
  );
}

/**
 * The one rich-text editor of the console (TipTap 3 on React 19): paragraphs, headings, bold, italic,
 * underline, strike, lists, quotes, code, links and images by URL, undo/redo. It edits HTML; the
 * server sanitises whatever it stores (src/core/content/sanitize.ts), so the editor is a convenience,
 * not a guard. A value changed from outside (a reload, a restore) replaces the content.
 */
export function RichText({ value, onChange, label, error, id, minHeight = 180, disabled }: RichTextProps) {
  const editor = useEditor({
    extensions: [StarterKit.configure({ link: { openOnClick: false, autolink: true } }), Image],
    content: value || '',
    editable: !disabled,
    onUpdate: ({ editor: e }) => onChange(e.isEmpty ? '' : e.getHTML()),
  });
  useEffect(() => {
    if (!editor) return;
    const now = editor.isEmpty ? '' : editor.getHTML();
    if ((value || '') !== now) editor.commands.setContent(value || '', { emitUpdate: false });
  }, [editor, value]);
  useEffect(() => {
    editor?.setEditable(!disabled);
  }, [editor, disabled]);

  const link = (e: Editor) => {
    const prev = (e.getAttributes('link').href as string | undefined) ?? '';
    const href = window.prompt('Link address (empty removes the link)', prev);
    if (href === null) return;
    if (!href) e.chain().focus().extendMarkRange('link').unsetLink().run();
    else e.chain().focus().extendMarkRange('link').setLink({ href }).run();
  };
  const image = (e: Editor) => {
    const src = window.prompt('Image address (https://…)');
    if (src) e.chain().focus().setImage({ src }).run();
  };

  return (
    <Form.Group className="mb-3" data-testid={id ? `richtext-${id}` : 'richtext'}>
      {label && <Form.Label htmlFor={id}>{label}</Form.Label>}
      {editor && (
        <div className="d-flex flex-wrap gap-1 mb-1" role="toolbar" aria-label={`${label ?? 'Text'} formatting`}>
          <ButtonGroup>
            <Tool editor={editor} label="B" title="Bold" active={editor.isActive('bold')} run={(e) => e.chain().focus().toggleBold().run()} />
            <Tool editor={editor} label="I" title="Italic" active={editor.isActive('italic')} run={(e) => e.chain().focus().toggleItalic().run()} />
            <Tool editor={editor} label="U" title="Underline" active={editor.isActive('underline')} run={(e) => e.chain().focus().toggleUnderline().run()} />
            <Tool editor={editor} label="S" title="Strike" active={editor.isActive('strike')} run={(e) => e.chain().focus().toggleStrike().run()} />
          </ButtonGroup>
          <ButtonGroup>
            <Tool editor={editor} label="H2" title="Heading 2" active={editor.isActive('heading', { level: 2 })} run={(e) => e.chain().focus().toggleHeading({ level: 2 }).run()} />
            <Tool editor={editor} label="H3" title="Heading 3" active={editor.isActive('heading', { level: 3 })} run={(e) => e.chain().focus().toggleHeading({ level: 3 }).run()} />
            <Tool editor={editor} label="•" title="Bullet list" active={editor.isActive('bulletList')} run={(e) => e.chain().focus().toggleBulletList().run()} />
            <Tool editor={editor} label="1." title="Numbered list" active={editor.isActive('orderedList')} run={(e) => e.chain().focus().toggleOrderedList().run()} />
            <Tool editor={editor} label="❝" title="Quote" active={editor.isActive('blockquote')} run={(e) => e.chain().focus().toggleBlockquote().run()} />
          </ButtonGroup>
          <ButtonGroup>
            <Tool editor={editor} label="Link" title="Link" active={editor.isActive('link')} run={link} />
            <Tool editor={editor} label="Img" title="Image" run={image} />
          </ButtonGroup>
          <ButtonGroup>
            <Tool editor={editor} label="↶" title="Undo" run={(e) => e.chain().focus().undo().run()} />
            <Tool editor={editor} label="↷" title="Redo" run={(e) => e.chain().focus().redo().run()} />
          </ButtonGroup>
        </div>
      )}
      <div id={id} className={`form-control richtext${error ? ' is-invalid' : ''}`} style={{ minHeight }}>
        <EditorContent editor={editor} />
      </div>
      {error && <div className="invalid-feedback d-block">{error}</div>}
    </Form.Group>
  );
}
