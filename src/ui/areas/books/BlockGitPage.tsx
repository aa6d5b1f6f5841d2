import { BlockScreen } from './BlockPage.js';

/** /book/block_git: owner/book/view links; blocks git_public / agit_public (docs/content.md). */
export default function BlockGitPage() { return <BlockScreen variant="git" />; }
