import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { AppModal } from '../../kit/AppModal.js';
import { ConfirmButton } from '../../kit/ConfirmButton.js';
import { ImageEditor } from '../../kit/ImageEditor.js';
import { SelectField, SwitchField, TextField } from '../../kit/fields.js';
import { notify } from '../../kit/notify.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';

/**
 * /kit: the shared components in one place, for engineers building area pages (not in the menu).
 * The browser tests use it to check the confirm dialog and modal sizes.
 */
export default function KitPage() {
  const [modal, setModal] = useState<'normal' | 'full' | null>(null);
  const [last, setLast] = useState('none');
  const [text, setText] = useState('');
  const [sel, setSel] = useState('1');
  const [on, setOn] = useState(true);
  const [stored, setStored] = useState<{ alias: string; url: string } | null>(null);
  return (
    <>
      <PageTitle title="UI kit" />
      <section className="app-card mb-3">
        <h2 className="h6">Notifications</h2>
        <div className="d-flex flex-wrap gap-2">
          <Button size="sm" variant="outline-success" onClick={() => notify.success('Save ok!')}>
            Success
          </Button>
          <Button size="sm" variant="outline-danger" onClick={() => notify.error('Time wait end')}>
            Error
          </Button>
          <Button size="sm" variant="outline-secondary" onClick={() => notify.info('A longer text stays longer: max(3000 ms, length / 18 s). '.repeat(2))}>
            Long
          </Button>
        </div>
      </section>
      <section className="app-card mb-3">
        <h2 className="h6">Confirm and modal</h2>
        <div className="d-flex flex-wrap gap-2 align-items-center">
          <ConfirmButton text="Delete this row?" onConfirm={() => setLast('confirmed')} />
          <ConfirmButton
            label="Deploy"
            variant="outline-primary"
            text="Deploy now or test first?"
            buttons={[
              { label: 'Test', variant: 'outline-primary', onClick: () => setLast('test') },
              { label: 'Deploy', variant: 'primary', onClick: () => setLast('deploy') },
            ]}
          />
          <Button size="sm" variant="outline-secondary" onClick={() => setModal('normal')}>
            Normal modal
          </Button>
          <Button size="sm" variant="outline-secondary" onClick={() => setModal('full')}>
            Full modal
          </Button>
          <span className="small text-secondary">
            Last choice: <span data-testid="kit-last">{last}</span>
          </span>
        </div>
        <AppModal show={modal !== null} onHide={() => setModal(null)} size={modal ?? 'normal'} title={`${modal} modal`} footer={<Button size="sm" onClick={() => setModal(null)}>Close</Button>}>
          Normal is 70% wide (at most 800 px), full is 95%; both 95% at 992 px or less.
        </AppModal>
      </section>
      <section className="app-card mb-3">
        <h2 className="h6">Fields</h2>
        <Form className="row g-2" onSubmit={(e) => e.preventDefault()}>
          <div className="col-md-4">
            <TextField name="kit-text" label="Text" value={text} onChange={setText} error={text.length > 5 ? 'At most 5 characters' : undefined} help="Type more than 5 characters" />
          </div>
          <div className="col-md-4">
            <SelectField name="kit-select" label="Select" value={sel} onChange={setSel} options={[{ value: '1', label: 'One' }, { value: '2', label: 'Two' }]} />
          </div>
          <div className="col-md-4 pt-md-4">
            <SwitchField name="kit-switch" label="Switch" checked={on} onChange={setOn} />
          </div>
        </Form>
      </section>
      <section className="app-card mb-3">
        <h2 className="h6">Image editor</h2>
        <p className="small text-secondary mb-2">
          Choose a picture, crop 16:9 or 4:3, zoom, rotate, Save: it is sent to the storage (<code>network_info.Files.send</code>, admins) under the code <code>kit</code>.
        </p>
        <ImageEditor codeInStorage="kit" domain="kit.example" replaceAlias={stored?.alias} onStored={(alias, url) => setStored({ alias, url })} />
        {stored && (
          <div className="mt-2 small">
            Stored <code data-testid="kit-stored-alias">{stored.alias}</code>
            <div><img src={stored.url} alt="The stored picture" data-testid="kit-stored-image" style={{ maxWidth: 320, maxHeight: 200 }} className="mt-1 border" /></div>
          </div>
        )}
      </section>
      <section className="app-card mb-3">
        <h2 className="h6">States</h2>
        <Loading />
        <EmptyState text="Nothing matched the filter" />
        <ErrorAlert error={new Error('Not valid response node hostname')} onRetry={() => undefined} />
      </section>
    </>
  );
}
