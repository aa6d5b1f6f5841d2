import {
  closestCenter, DndContext, KeyboardSensor, PointerSensor, useSensor, useSensors, type DragEndEvent,
} from '@dnd-kit/core';
import {
  arrayMove, SortableContext, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy,
} from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import type { ReactNode } from 'react';
import { ListGroup } from 'react-bootstrap';

export interface SortableListProps<T> {
  items: T[];
  /** A stable key per item (an id). */
  keyOf: (item: T) => string | number;
  /** The new order, after a drag with the mouse or the keyboard. */
  onReorder: (items: T[]) => void;
  /** What a row shows beside its handle (buttons inside work as usual). */
  render: (item: T, index: number) => ReactNode;
  /** For screen readers and tests: what a row is ('Item 12'). */
  labelOf?: (item: T) => string;
  testId?: string;
}

function Row({ id, label, children }: { id: string | number; label: string; children: ReactNode }) {
  const { attributes, listeners, setNodeRef, transform, transition, isDragging } = useSortable({ id });
  return (
    <ListGroup.Item ref={setNodeRef} className="d-flex align-items-center gap-2" data-sortable-id={id}
      style={{ transform: CSS.Transform.toString(transform), transition, zIndex: isDragging ? 2 : undefined, opacity: isDragging ? 0.85 : 1 }}>
      <span className="sortable-handle text-muted px-1" aria-label={`Move ${label}`} title="Drag, or Space then arrows to move"
        style={{ cursor: 'grab', touchAction: 'none' }} {...attributes} {...listeners}>
        ⠿
      </span>
      <div className="flex-grow-1 min-w-0">{children}</div>
    </ListGroup.Item>
  );
}

/**
 * The one drag-and-drop ordering of the console (@dnd-kit): rows move by dragging their handle with a
 * mouse or a finger, or from the keyboard (Tab to a handle, Space to lift, arrows to move, Space to
 * drop, Escape to cancel). Used for compilation items and the category weight order.
 */
export function SortableList<T>({ items, keyOf, onReorder, render, labelOf, testId }: SortableListProps<T>) {
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const ids = items.map(keyOf);
  const onDragEnd = (e: DragEndEvent) => {
    if (!e.over || e.active.id === e.over.id) return;
    const from = ids.indexOf(e.active.id as never);
    const to = ids.indexOf(e.over.id as never);
    if (from < 0 || to < 0) return;
    onReorder(arrayMove(items, from, to));
  };
  return (
    <DndContext sensors={sensors} collisionDetection={closestCenter} onDragEnd={onDragEnd}>
      <SortableContext items={ids} strategy={verticalListSortingStrategy}>
        <ListGroup data-testid={testId}>
          {items.map((item, i) => (
            <Row key={keyOf(item)} id={keyOf(item)} label={labelOf ? labelOf(item) : `row ${i + 1}`}>
              {render(item, i)}
            </Row>
          ))}
        </ListGroup>
      </SortableContext>
    </DndContext>
  );
}
