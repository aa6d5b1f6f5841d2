/**
 * /position/projects (001 §2 "Position tracking"; issue 23): the projects with their query counts and
 * average position; add and edit (name, site domain, search engine, region, schedule, depth).
 */
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Table from 'react-bootstrap/Table';
import { Link } from 'react-router-dom';
import { POSITION_ENGINE_LABELS, POSITION_REGIONS, POSITION_SCHEDULE_LABELS, type PositionProject } from '../../../contracts/position.js';
import { Role, roleAllows } from '../../../contracts/roles.js';
import { useRpc, useSession } from '../../api/hooks.js';
import { fmtDateTime, fmtNumber } from '../../kit/format.js';
import { PageTitle } from '../../kit/PageTitle.js';
import { EmptyState, ErrorAlert, Loading } from '../../kit/states.js';
import { NotConfiguredNote, ProjectDialog } from './parts.js';

export const regionLabel = (id: number) => POSITION_REGIONS.find((r) => r.id === id)?.label ?? String(id);

export default function ProjectsPage() {
  const { data, error, loading, reload } = useRpc('position.getProjects', {});
  const session = useSession();
  const canEdit = roleAllows(session?.role, Role.content);
  const [edit, setEdit] = useState<{ project: PositionProject | null } | null>(null);
  return (
    <>
      <PageTitle title="Positions" actions={canEdit && <Button size="sm" onClick={() => setEdit({ project: null })} data-testid="project-add">Add project</Button>} />
      {data && !data.configured && <NotConfiguredNote />}
      {error && <ErrorAlert error={error} onRetry={reload} />}
      {loading && !data && <Loading />}
      {data && !data.list.length && <EmptyState text="No projects yet" />}
      {data && data.list.length > 0 && (
        <Table size="sm" hover responsive className="align-middle" data-testid="projects">
          <thead>
            <tr><th>Project</th><th>Site domain</th><th>Search engine</th><th>Region</th><th>Check</th><th className="text-end">Queries</th><th className="text-end">Average position</th><th className="text-end">In top</th><th>Checked</th><th /></tr>
          </thead>
          <tbody>
            {data.list.map((p) => (
              <tr key={p.id_project} data-testid={`project-${p.id_project}`}>
                <td><Link to={`/position/project/${p.id_project}`}>{p.name}</Link></td>
                <td>{p.domain}</td>
                <td>{POSITION_ENGINE_LABELS[p.engine] ?? p.engine}</td>
                <td>{regionLabel(p.region)}</td>
                <td>{POSITION_SCHEDULE_LABELS[p.schedule_hours] ?? `${p.schedule_hours} h`}</td>
                <td className="text-end" data-testid="queries">{p.queries}</td>
                <td className="text-end" data-testid="avg">{p.avg_pos === null ? '-' : fmtNumber(p.avg_pos, 1)}</td>
                <td className="text-end">{p.found}{p.stale > 0 && <span className="text-warning ms-1" title="queries whose last check failed">({p.stale} stale)</span>}</td>
                <td className="small text-secondary">{fmtDateTime(p.checked)}</td>
                <td className="text-end">{canEdit && <Button size="sm" variant="outline-secondary" onClick={() => setEdit({ project: p })}>Edit</Button>}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <ProjectDialog show={!!edit} project={edit?.project ?? null} onHide={() => setEdit(null)} onSaved={() => { setEdit(null); reload(); }} />
    </>
  );
}
