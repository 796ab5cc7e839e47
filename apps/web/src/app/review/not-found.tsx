export { ComparisonNotFound as default } from '../../components/compare/ComparisonNotFound.tsx';
