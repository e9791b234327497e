# noisy paper App. B.3, Table 3: accuracy with feature noise (left) and the robustness drop (right,
# clean accuracy - accuracy with noise) of a dense two-layer ReLU MLP and a correctly routed MoE at
# equal parameter count, per size setting (k blocks), mean +- standard error over seeds.
# Usage: gnuplot -e "csv='results/moe_noisy_b3_table3.csv'; png='results/moe_noisy_b3_table3.png'" plots/moe_noisy_b3_table3.gp
# Columns are selected by name (the CSV header), so a reordered CSV still plots right.
if (!exists("csv")) csv = 'results/moe_noisy_b3_table3.csv'
if (!exists("png")) png = 'results/moe_noisy_b3_table3.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
first_value(name) = system(sprintf("awk -F, '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; h = 1; next} {print $k; exit}' '%s'", name, csv))
sigma = first_value("sigma")
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,500 enhanced font ",11"
  } else {
    set terminal png size 1200,500
  }
  set output png
} else {
  set terminal svg size 1200,500 enhanced font ",11" dynamic
  set output svg
}
set datafile separator comma
set datafile columnheaders
set multiplot layout 1, 2 title sprintf("Dense vs correctly routed MoE, ReLU classification, {/Symbol s} = %s (noisy App. B.3, Table 3); %s", sigma, trials_text)
set style fill solid 0.6 border -1
set boxwidth 0.35
set xlabel "size setting: k blocks (d = 8 k)"
set grid y
set key top right box opaque
set title "test accuracy with noise (%)"
set ylabel "accuracy (%)"
set yrange [*:*]
plot csv using ($0 - 0.18):(100 * column("dense_noisy")):xtic(sprintf("k = %d", column("blocks"))) with boxes lc 1 title "dense", \
     csv using ($0 - 0.18):(100 * column("dense_noisy")):(100 * column("dense_noisy_se")) with yerrorbars lc black pt -1 notitle, \
     csv using ($0 + 0.18):(100 * column("moe_noisy")) with boxes lc 3 title "MoE (correct routing)", \
     csv using ($0 + 0.18):(100 * column("moe_noisy")):(100 * column("moe_noisy_se")) with yerrorbars lc black pt -1 notitle
set title "robustness drop: clean - noisy accuracy (percentage points)"
set ylabel "drop (points)"
set yrange [0:*]
plot csv using ($0 - 0.18):(100 * column("dense_drop")):xtic(sprintf("k = %d", column("blocks"))) with boxes lc 1 title "dense", \
     csv using ($0 - 0.18):(100 * column("dense_drop")):(100 * column("dense_drop_se")) with yerrorbars lc black pt -1 notitle, \
     csv using ($0 + 0.18):(100 * column("moe_drop")) with boxes lc 3 title "MoE (correct routing)", \
     csv using ($0 + 0.18):(100 * column("moe_drop")):(100 * column("moe_drop_se")) with yerrorbars lc black pt -1 notitle
unset multiplot
}
