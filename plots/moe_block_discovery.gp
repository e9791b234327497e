# noisy paper Fig. 1 (App. B.1): activation percentiles with tokens (rows) and features (columns)
# reordered by the spectral blocks of the features' cosine affinity; a block-diagonal picture means
# modular structure. The title gives the share of |activation| mass on the diagonal blocks and the
# share a matrix without structure would give.
# Usage: gnuplot -e "csv='results/moe_block_discovery.csv'; png='results/moe_block_discovery.png'" plots/moe_block_discovery.gp
# Columns are selected by name (the CSV header), so a reordered CSV still plots right.
if (!exists("csv")) csv = 'results/moe_block_discovery.csv'
if (!exists("png")) png = 'results/moe_block_discovery.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
first_value(name) = system(sprintf("awk -F, '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; h = 1; next} {print $k; exit}' '%s'", name, csv))
mass = first_value("diagonal_mass") + 0
share = first_value("diagonal_share") + 0
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 800,750 enhanced font ",11"
  } else {
    set terminal png size 800,750
  }
  set output png
} else {
  set terminal svg size 800,750 enhanced font ",11" dynamic
  set output svg
}
set datafile separator comma
set datafile columnheaders
set title sprintf("Activation percentiles by spectral block (diagonal mass %.2f vs %.2f without structure)", mass, share)
set xlabel "features (ordered by block)"
set ylabel "tokens (ordered by dominant block)"
set yrange [*:*] reverse
set cbrange [0:100]
set cblabel "percentile of |activation|"
set palette defined (0 "#ffffff", 50 "#6baed6", 100 "#08306b")
unset key
plot csv using "col":"row":"percentile" with image
set yrange [*:*] noreverse
}
